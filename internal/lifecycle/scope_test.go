package lifecycle

import (
	"reflect"
	"testing"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/gitx"
)

func TestRedScopePytest(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		changed []string
		want    []string
	}{
		{"one changed file", []string{"pytest", "-v"}, []string{"tests/test_mul.py"}, []string{"tests/test_mul.py"}},
		{"conftest and package files are not run", []string{"pytest"}, []string{"tests/conftest.py", "tests/__init__.py", "tests/data.json", "tests/test_a.py"}, []string{"tests/test_a.py"}},
		{"sorted", []string{"pytest"}, []string{"tests/test_b.py", "tests/test_a.py"}, []string{"tests/test_a.py", "tests/test_b.py"}},
		{"kept to the command's paths", []string{"pytest", "tests/unit", "-k", "other"}, []string{"tests/unit/test_a.py", "tests/e2e/test_b.py", "other/test_c.py"}, []string{"tests/unit/test_a.py"}},
		{"an option's value is not a path", []string{"pytest", "--rootdir", "x", "-p", "no:foo", "-o", "a=b"}, []string{"tests/test_a.py"}, []string{"tests/test_a.py"}},
		{"a node id in the command", []string{"pytest", "tests/test_a.py::test_one"}, []string{"tests/test_a.py", "tests/test_b.py"}, []string{"tests/test_a.py"}},
		{"the file the command names", []string{"pytest", "-v", "tests/test_more.py"}, []string{"tests/test_more.py", "tests/test_b.py"}, []string{"tests/test_more.py"}},
		{"a directory written ./x/", []string{"pytest", "./tests/unit/", "--deselect", "other/test_c.py::t"}, []string{"tests/unit/test_a.py", "other/test_c.py"}, []string{"tests/unit/test_a.py"}},
		{"an absolute path inside the worktree", []string{"pytest", "/wt/tests/unit"}, []string{"tests/unit/test_a.py", "tests/e2e/test_b.py"}, []string{"tests/unit/test_a.py"}},
		{"nothing selectable", []string{"pytest"}, []string{"tests/conftest.py"}, nil},
		{"no test file", []string{"pytest"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Test.Command = tt.command
			changed := map[string]bool{}
			for _, f := range tt.changed {
				changed[f] = true
			}
			s := RedScope(cfg, "/wt", nil, changed, nil)
			if !reflect.DeepEqual(s.Select, tt.want) {
				t.Errorf("Select = %q, want %q (%s)", s.Select, tt.want, s.Why)
			}
			if s.Why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestRedScopeAllAndGeneric(t *testing.T) {
	cfg := config.Default()
	changed := map[string]bool{"tests/test_a.py": true}
	cfg.Test.RedScope = "all"
	if s := RedScope(cfg, "/wt", nil, changed, nil); s.Scoped() {
		t.Errorf("red_scope = all scoped the run: %+v", s)
	}
	cfg.Test.RedScope, cfg.Test.Runner = "changed", "generic"
	if s := RedScope(cfg, "/wt", nil, changed, nil); s.Scoped() {
		t.Errorf("a generic runner was scoped: %+v", s)
	}
}

func TestRedScopeGo(t *testing.T) {
	old := []byte("package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\n\nfunc TestSame(t *testing.T) { t.Log(1) }\n")
	now := []byte("package calc\n\nimport \"testing\"\n\n// a comment is not a change\nfunc TestAdd(t *testing.T) { t.Log(2) }\n\nfunc TestSame(t *testing.T) { t.Log(1) }\n\nfunc FuzzParse(f *testing.F) {}\n\nfunc helper() {}\n\nfunc ExampleAdd() {}\n")
	added := []byte("package other\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {}\n")
	branch := []gitx.RawEntry{
		{Path: "calc/calc_test.go", OldOID: "o1", NewOID: "n1"},
		{Path: "other/new_test.go", OldOID: "0000000000000000000000000000000000000000", NewOID: "n2"},
	}
	blobs := map[string][]byte{"o1": old, "n1": now, "n2": added}
	cfg := config.Default()
	cfg.Test.Runner = "go"
	s := RedScope(cfg, "", branch, map[string]bool{"calc/calc_test.go": true, "other/new_test.go": true}, blobs)
	if want := []string{"TestAdd", "FuzzParse", "ExampleAdd", "TestNew"}; !reflect.DeepEqual(s.Select, want) {
		t.Errorf("Select = %q, want %q", s.Select, want)
	}
	if want := []string{"./calc", "./other"}; !reflect.DeepEqual(s.Packages, want) {
		t.Errorf("Packages = %q, want %q", s.Packages, want)
	}
	// a file whose tests did not change (a helper edited) selects nothing
	blobs["n1"] = append(append([]byte{}, old...), "\nfunc helper() {}\n"...)
	s = RedScope(cfg, "", branch[:1], map[string]bool{"calc/calc_test.go": true}, blobs)
	if s.Scoped() {
		t.Errorf("unchanged tests were selected: %+v", s)
	}
}

func TestHooksTheRun(t *testing.T) {
	tests := []struct {
		path, text string
		want       bool
	}{
		{"tests/test_a.py", "def test_a():\n    assert 1\n", false},
		{"tests/test_a.py", "pytest_plugins = ['tests.helper']\n", true},
		{"tests/helper.py", "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef f(item): yield\n", true},
		{"tests/helper.py", "def  pytest_runtest_makereport(item, call):\n    pass\n", true},
		{"tests/test_a.py", "def test_pytest_mentioned():\n    assert 'pytest_x'\n", false},
		{"calc/a_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n", false},
		{"calc/a_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestMain/**/(m *testing.M) { m.Run() }\n", true},
		{"calc/a_test.go", "package calc\n\nfunc init() {}\n", true},
		{"calc/a_test.go", "package calc\n\ntype T struct{}\n\nfunc (T) init() {}\n", false},
		{"calc/a_test.go", "package calc\n\nfunc {", true}, // does not parse: counts
	}
	for _, tt := range tests {
		if got := hooksTheRun(tt.path, []byte(tt.text)); got != tt.want {
			t.Errorf("hooksTheRun(%s, %q) = %v, want %v", tt.path, tt.text, got, tt.want)
		}
	}
}
