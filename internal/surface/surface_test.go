package surface

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var defaults = New([]string{"tests/**", "**/test_*.py", "**/*_test.py", "**/*_test.go"}, []string{"fixtures/*.json"})

func TestFrozen(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"tests/test_a.py", true},
		{"tests/data/input.txt", true},
		{"pkg/test_b.py", true},
		{"conftest.py", true},
		{"deep/down/conftest.py", true},
		{"pytest.ini", true},
		{"sub/.pytest.ini", true},
		{"pytest.toml", true},
		{"pyproject.toml", true},
		{"setup.cfg", true},
		{"tox.ini", true},
		{"calc/calc_test.go", true},
		{"calc/testdata/golden.txt", true},
		{"testdata/x", true},
		{"fixtures/a.json", true},
		{"calc/__init__.py", false},
		{"calc/calc.go", false},
		{"README.md", false},
		{"mytestdata/x", false},
	} {
		if got := defaults.Frozen(tt.path); got != tt.want {
			t.Errorf("Frozen(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	blobs := map[string]string{
		"deps1":   "[project]\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
		"deps2":   "[project]\ndependencies = [\"requests\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
		"opts":    "[project]\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = \"--runxfail\"\n",
		"nopy":    "[project]\nname = \"x\"\n",
		"cfg1":    "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n",
		"cfg2":    "[metadata]\nname = y\n# a comment\n\n[tool:pytest]\naddopts = -q   \n",
		"cfg3":    "[metadata]\nname = x\n\n[tool:pytest]\naddopts = --runxfail\n",
		"tox1":    "[tox]\nenvlist = py311\n",
		"tox2":    "[tox]\nenvlist = py312\n\n[pytest]\naddopts = --runxfail\n",
		"empty":   "",
		"section": "[tool.pytest.ini_options]\n",
	}
	read := func(oid string) ([]byte, error) { return []byte(blobs[oid]), nil }
	entries := []Entry{
		{Path: "tests/test_a.py", Old: "a1", New: "a2"},
		{Path: "tests/test_new.py", New: "n"},
		{Path: "tests/test_gone.py", Old: "g"},
		{Path: "calc/__init__.py", Old: "i1", New: "i2"},
		{Path: "pyproject.toml", Old: "deps1", New: "deps2"}, // a dependency: not the tests
		{Path: "sub/pyproject.toml", Old: "deps1", New: "opts"},
		{Path: "setup.cfg", Old: "cfg1", New: "cfg2"}, // metadata, a comment, a trailing space
		{Path: "pkg/setup.cfg", Old: "cfg1", New: "cfg3"},
		{Path: "tox.ini", Old: "tox1", New: "tox2"},
		{Path: "other/pyproject.toml", New: "nopy"},                 // added, no pytest section
		{Path: "more/pyproject.toml", Old: "empty", New: "section"}, // an empty section is still one
		{Path: "conftest.py", Old: "c1", New: "c2"},
	}
	got, err := defaults.Diff(entries, read)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range got {
		s = append(s, c.String())
	}
	want := []string{
		"changed: conftest.py",
		"changed: more/pyproject.toml (its pytest section)",
		"changed: pkg/setup.cfg (its pytest section)",
		"changed: sub/pyproject.toml (its pytest section)",
		"changed: tests/test_a.py",
		"deleted: tests/test_gone.py",
		"added: tests/test_new.py",
		"changed: tox.ini (its pytest section)",
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Diff:\n got %q\nwant %q", s, want)
	}
	// a freeze glob freezes a shared file whole
	whole := New(nil, []string{"pyproject.toml"})
	got, _ = whole.Diff([]Entry{{Path: "pyproject.toml", Old: "deps1", New: "deps2"}}, read)
	if len(got) != 1 || got[0].Note != "" {
		t.Errorf("a frozen pyproject.toml: %v", got)
	}
}

func TestIgnoredLoaded(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"conftest.py", "calc/conftest.py", "tests/out/result.json", "tests/out/test_gen.py",
		"tests/__pycache__/test_a.cpython-311.pyc", ".venv/lib/site-packages/pkg/conftest.py",
		"venv2/pyvenv.cfg", "venv2/lib/conftest.py", "build/lib/conftest.py", "gen/zz_cheat.go",
		"gen/_skip/conftest.py", "fixtures/a.json", "notes.txt",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	ignored := []string{"conftest.py", "calc/conftest.py", "tests/out/", "tests/__pycache__/", ".venv/", "venv2/", "build/", "gen/", "fixtures/a.json", "notes.txt"}
	var got []string
	for _, c := range defaults.IgnoredLoaded(root, ignored) {
		got = append(got, c.Path)
	}
	want := []string{"calc/conftest.py", "conftest.py", "fixtures/a.json", "gen/zz_cheat.go", "tests/out/test_gen.py"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("IgnoredLoaded:\n got %q\nwant %q", got, want)
	}
}

func TestHazards(t *testing.T) {
	files := []Hazard{
		{Path: "calc/__pycache__/__init__.cpython-311.pyc"},
		{Path: "calc.pyc"},
		{Path: "lib/_speedups.so"},
		{Path: "src/x.dist-info/entry_points.txt"},
		{Path: "src/x.egg-info/PKG-INFO"},
		{Path: "src/sitecustomize.py"},
		{Path: "hook.pth"},
		{Path: "pytest/__main__.py"},
		{Path: "src/_pytest/junitxml.py"},
		{Path: "lib/pluggy.py"},
		{Path: "vendor", Mode: 0o160000},
		{Path: "calc/__init__.py"},
		{Path: "tests/test_pytest.py"},
		{Path: "docs/pytest/intro.md"},
		{Path: "calc/py.typed"},
	}
	var got []string
	for _, c := range Hazards(files, []string{"", "src", "lib"}) {
		got = append(got, c.Path)
	}
	want := []string{"calc.pyc", "calc/__pycache__/__init__.cpython-311.pyc", "hook.pth", "lib/_speedups.so", "lib/pluggy.py",
		"pytest/__main__.py", "src/_pytest/junitxml.py", "src/sitecustomize.py", "src/x.dist-info/entry_points.txt",
		"src/x.egg-info/PKG-INFO", "vendor"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Hazards:\n got %q\nwant %q", got, want)
	}
}
