package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSplitPytest: an option's value is never taken for a path to test,
// whichever way it is written.
func TestSplitPytest(t *testing.T) {
	for _, tt := range []struct {
		name        string
		args        []string
		opts, paths []string
	}{
		{"paths and flags", []string{"-v", "tests/test_a.py", "-x", "tests/unit"}, []string{"-v", "-x"}, []string{"tests/test_a.py", "tests/unit"}},
		{"values after the option", []string{"-k", "more", "-m", "slow", "-p", "no:randomly", "-c", "ci.ini", "-o", "a=b", "-W", "error", "-r", "A", "t.py"},
			[]string{"-k", "more", "-m", "slow", "-p", "no:randomly", "-c", "ci.ini", "-o", "a=b", "-W", "error", "-r", "A"}, []string{"t.py"}},
		{"long options that take a path", []string{"--rootdir", "src", "--deselect", "tests/test_a.py::test_x", "--ignore", "tests/old", "--ignore-glob", "*_old.py", "--confcutdir", "tests", "--basetemp", "/tmp/b", "tests"},
			[]string{"--rootdir", "src", "--deselect", "tests/test_a.py::test_x", "--ignore", "tests/old", "--ignore-glob", "*_old.py", "--confcutdir", "tests", "--basetemp", "/tmp/b"}, []string{"tests"}},
		{"values after =", []string{"--tb=short", "--deselect=tests/a.py::x", "--maxfail=1", "tests/a.py"}, []string{"--tb=short", "--deselect=tests/a.py::x", "--maxfail=1"}, []string{"tests/a.py"}},
		{"values attached to a short option", []string{"-kmore", "-rA", "-pno:cacheprovider", "tests/a.py"}, []string{"-kmore", "-rA", "-pno:cacheprovider"}, []string{"tests/a.py"}},
		{"a cluster ending with an option that takes a value", []string{"-vvk", "more", "-xk", "a or b", "tests/a.py"}, []string{"-vvk", "more", "-xk", "a or b"}, []string{"tests/a.py"}},
		{"plugins' options", []string{"-n", "4", "--dist", "loadfile", "--cov-report", "term", "--timeout", "30", "--reruns", "2", "tests"},
			[]string{"-n", "4", "--dist", "loadfile", "--cov-report", "term", "--timeout", "30", "--reruns", "2"}, []string{"tests"}},
		{"an optional value is taken when it is not an option", []string{"--cov", "src", "--cov", "-v", "tests"}, []string{"--cov", "src", "--cov", "-v"}, []string{"tests"}},
		{"after --, everything is a path", []string{"-v", "--", "-odd.py", "tests"}, []string{"-v"}, []string{"-odd.py", "tests"}},
		{"an option at the end", []string{"tests", "-k"}, []string{"-k"}, []string{"tests"}},
		{"node ids", []string{"tests/a.py::TestK::test_m", "tests/b.py::test[1-2]"}, nil, []string{"tests/a.py::TestK::test_m", "tests/b.py::test[1-2]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts, paths := splitPytest(tt.args)
			if !reflect.DeepEqual(opts, tt.opts) || !reflect.DeepEqual(paths, tt.paths) {
				t.Errorf("splitPytest(%q)\n= %q, %q\nwant %q, %q", tt.args, opts, paths, tt.opts, tt.paths)
			}
		})
	}
}

// TestUniquePaths: the same path written another way is the same path.
func TestUniquePaths(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"./x and x/", []string{"./tests/test_a.py", "tests/test_a.py", "tests/", "tests", "./tests/"}, []string{"tests/test_a.py", "tests"}},
		{"absolute inside the run directory", []string{"/wt/tests/test_a.py", "tests/test_a.py", "/wt", "."}, []string{"tests/test_a.py", "."}},
		{"absolute outside it stays", []string{"/elsewhere/tests", "/wt-2/t.py", "/wt/../other"}, []string{"/elsewhere/tests", "/wt-2/t.py", "/other"}},
		{"node ids: their file cleaned, the id kept", []string{"./tests/a.py::test_x", "tests/a.py::test_x", "/wt/tests/a.py::test_x", "tests/a.py::test_x[a/b]"}, []string{"tests/a.py::test_x", "tests/a.py::test_x[a/b]"}},
		{"order kept", []string{"b.py", "a.py", "b.py"}, []string{"b.py", "a.py"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := uniquePaths(tt.in, "/wt"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("uniquePaths(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPytestCommand: a scoped run replaces the command's paths with the
// selection, keeps its options in their order, and never names a test twice.
func TestPytestCommand(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command []string
		sel     []string
		argv    []string
		paths   []string
	}{
		{"no paths: the selection", []string{"pytest", "-v", "--tb=short"}, []string{"tests/test_a.py"},
			[]string{"pytest", "-v", "--tb=short"}, []string{"tests/test_a.py"}},
		{"the file the command names, given once", []string{"pytest", "-v", "tests/test_more.py"}, []string{"tests/test_more.py"},
			[]string{"pytest", "-v"}, []string{"tests/test_more.py"}},
		{"a file of the directory it names", []string{"pytest", "./tests/", "-q"}, []string{"tests/test_a.py"},
			[]string{"pytest", "-q"}, []string{"tests/test_a.py"}},
		{"an absolute path inside the worktree", []string{"pytest", "/wt/tests/test_a.py"}, []string{"tests/test_a.py"},
			[]string{"pytest"}, []string{"tests/test_a.py"}},
		{"a test it names, narrower than the selected file", []string{"pytest", "tests/test_a.py::test_one", "tests/test_b.py"}, []string{"tests/test_a.py"},
			[]string{"pytest"}, []string{"tests/test_a.py::test_one"}},
		{"ids of the file it names", []string{"pytest", "tests/test_a.py"}, []string{"tests/test_a.py::test_x", "tests/test_a.py::test_y[1]"},
			[]string{"pytest"}, []string{"tests/test_a.py::test_x", "tests/test_a.py::test_y[1]"}},
		{"options with path-like values stay", []string{"pytest", "--deselect", "tests/test_a.py::test_slow", "--ignore", "tests/old", "-o", "a=b", "-k", "more", "tests"}, []string{"tests/test_a.py"},
			[]string{"pytest", "--deselect", "tests/test_a.py::test_slow", "--ignore", "tests/old", "-o", "a=b", "-k", "more"}, []string{"tests/test_a.py"}},
		{"the selection once, nothing inside another", []string{"pytest", "tests", "tests/test_a.py"}, []string{"./tests/test_a.py", "tests/test_a.py", "tests/test_a.py::test_x"},
			[]string{"pytest"}, []string{"tests/test_a.py"}},
		{"a selection the command does not name stays (a proof names its tests)", []string{"pytest", "tests/unit"}, []string{"tests/e2e/test_b.py::test_x"},
			[]string{"pytest"}, []string{"tests/e2e/test_b.py::test_x"}},
		{"a path that pytest would read as an option", []string{"pytest"}, []string{"-odd/test_a.py"},
			[]string{"pytest"}, []string{"./-odd/test_a.py"}},
		{"no selection: the command as it is", []string{"pytest", "-v", "tests", "tests"}, nil,
			[]string{"pytest", "-v", "tests", "tests"}, []string{"tests", "tests"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			argv, paths := pytestCommand(tt.command, tt.sel, "/wt")
			if !reflect.DeepEqual(argv, tt.argv) || !reflect.DeepEqual(paths, tt.paths) {
				t.Errorf("pytestCommand(%q, %q)\n= %q, %q\nwant %q, %q", tt.command, tt.sel, argv, paths, tt.argv, tt.paths)
			}
		})
	}
}

func TestPytestCoversAndOverlaps(t *testing.T) {
	for _, tt := range []struct {
		paths            []string
		p                string
		covers, overlaps bool
	}{
		{nil, "tests/a.py", true, true},
		{[]string{"."}, "tests/a.py", true, true},
		{[]string{"tests"}, "tests/a.py", true, true},
		{[]string{"tests"}, "tests2/a.py", false, false},
		{[]string{"tests/a.py"}, "tests/a.py::test_x", true, true},
		{[]string{"tests/a.py::test_x"}, "tests/a.py::test_x[1]", true, true},
		{[]string{"tests/a.py::test_x"}, "tests/a.py::test_xy", false, false},
		{[]string{"tests/a.py::test_x"}, "tests/a.py", false, true},
		{[]string{"tests/unit/a.py"}, "tests", false, true},
		{[]string{"tests/a.py"}, "tests/a.pyc", false, false},
	} {
		if got := PytestCovers(tt.paths, tt.p); got != tt.covers {
			t.Errorf("PytestCovers(%q, %q) = %v", tt.paths, tt.p, got)
		}
		if got := PytestOverlaps(tt.paths, tt.p); got != tt.overlaps {
			t.Errorf("PytestOverlaps(%q, %q) = %v", tt.paths, tt.p, got)
		}
	}
}

// TestPytestCommandNamesFile: with real pytest, a command that names the
// selected file runs each of its tests once.
func TestPytestCommandNamesFile(t *testing.T) {
	requirePytest(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tests"), 0o755)
	os.WriteFile(filepath.Join(dir, "tests", "test_more.py"), []byte("def test_ok():\n    pass\n\ndef test_bad():\n    assert False\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "tests", "test_other.py"), []byte("def test_other():\n    pass\n"), 0o644)
	for _, command := range [][]string{
		{"pytest", "-v", "tests/test_more.py"},
		{"pytest", "./tests/", "-k", "ok or bad"},
		{"pytest", filepath.Join(dir, "tests", "test_more.py")},
	} {
		res, err := Run(context.Background(), Spec{Command: command, Runner: "pytest", Timeout: time.Minute, Dir: dir,
			Env: Seal(os.Environ(), nil), Select: []string{"tests/test_more.py"}})
		if err != nil || res.Exit != 1 {
			t.Fatalf("%q: %+v %v", command, res, err)
		}
		var ids []string
		for _, tt := range res.Tests {
			ids = append(ids, tt.ID)
		}
		if want := "tests/test_more.py::test_ok tests/test_more.py::test_bad"; strings.Join(ids, " ") != want {
			t.Errorf("%q ran %q, want %s", command, ids, want)
		}
	}
}
