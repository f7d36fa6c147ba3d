package lifecycle

import (
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/surface"
)

// Issue 21: the red is proved on the merge's first parent with only what the
// merge changes in the frozen surface; every other added, changed or deleted
// file of the branch is left out.
func TestFrozenEntries(t *testing.T) {
	r := surface.New([]string{"tests/**", "**/test_*.py", "**/*_test.py", "**/*_test.go"}, []string{"fixtures/**", "Makefile"})
	const oid, null = "1111111111111111111111111111111111111111", "0000000000000000000000000000000000000000"
	entry := func(status byte, p string) gitx.RawEntry {
		e := gitx.RawEntry{Status: status, Path: p, OldMode: gitx.ModeRegular, NewMode: gitx.ModeRegular, OldOID: oid, NewOID: oid}
		switch status {
		case 'A':
			e.OldMode, e.OldOID = 0, null
		case 'D':
			e.NewMode, e.NewOID = 0, null
		}
		return e
	}
	tests := []struct {
		name string
		raw  []gitx.RawEntry
		want []string
	}{
		{"nothing changed", nil, nil},
		{"a new test, and the package that shadows working code", []gitx.RawEntry{entry('A', "calc/core/__init__.py"), entry('A', "tests/test_add_more.py")}, []string{"tests/test_add_more.py"}},
		{"changed code and a changed test", []gitx.RawEntry{entry('M', "calc/__init__.py"), entry('M', "tests/test_add.py")}, []string{"tests/test_add.py"}},
		{"a deleted test is the surface's change; deleted code is not", []gitx.RawEntry{entry('D', "calc/old.py"), entry('D', "tests/test_old.py")}, []string{"tests/test_old.py"}},
		{"test configuration at any depth", []gitx.RawEntry{entry('M', "conftest.py"), entry('A', "pkg/sub/conftest.py"), entry('M', "pyproject.toml"), entry('M', "setup.py")}, []string{"conftest.py", "pkg/sub/conftest.py", "pyproject.toml"}},
		{"test files outside tests/", []gitx.RawEntry{entry('A', "calc/test_mul.py"), entry('A', "calc/mul_test.go"), entry('A', "calc/mul.go")}, []string{"calc/test_mul.py", "calc/mul_test.go"}},
		{"test data and freeze globs", []gitx.RawEntry{entry('A', "calc/testdata/in.json"), entry('M', "fixtures/a.csv"), entry('M', "Makefile"), entry('M', "data/a.csv")}, []string{"calc/testdata/in.json", "fixtures/a.csv", "Makefile"}},
		{"a name like a test file's, as a directory of code", []gitx.RawEntry{entry('A', "calc/testing.py"), entry('A', "contest.py")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range frozenEntries(r, tt.raw) {
				got = append(got, e.Path)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Issue 21: on the base with the branch's tests, a recorded red test must not
// pass; anything else there (a failure, an error, a file that cannot import, a
// package that does not build) shows the branch's code is what makes it pass.
func TestPassOnBase(t *testing.T) {
	const base = "0123456789abcdef0123456789abcdef01234567"
	gobuild := &runner.Result{Exit: 2, RawExit: 1, Runner: "go"}
	tests := []struct {
		name   string
		result *runner.Result
		ids    []string
		err    string // "" when the red holds there
	}{
		{"the recorded test fails", res(1, tc("tests/t.py::test_a", runner.Failed)), []string{"tests/t.py::test_a"}, ""},
		{"it already passes", res(0, tc("tests/t.py::test_a", runner.Passed)), []string{"tests/t.py::test_a"}, "the recorded red tests already pass on 0123456789ab"},
		{"one of two already passes", res(1, tc("tests/t.py::test_a", runner.Failed), tc("tests/t.py::test_b", runner.Passed)), []string{"tests/t.py::test_a", "tests/t.py::test_b"}, "already pass"},
		{"it errors: a fixture needs the branch's code", res(1, tc("tests/t.py::test_a", runner.Errored)), []string{"tests/t.py::test_a"}, ""},
		{"its file cannot import what the branch adds", res(2, coll("tests/t.py", "ModuleNotFoundError: No module named 'fmt'")), []string{"tests/t.py::test_a"}, ""},
		{"it is skipped there", res(0, tc("tests/t.py::test_a", runner.Skipped)), []string{"tests/t.py::test_a"}, ""},
		{"a go package that does not build without the branch's code", gobuild, []string{"example.com/calc.TestMul"}, ""},
		{"a red file whose tests all pass", res(0, tc("tests/t.py::test_a", runner.Passed), tc("tests/t.py::test_b", runner.Passed)), []string{"tests/t.py"}, "already pass"},
		{"a red file that cannot import", res(2, coll("tests/t.py", "ImportError: cannot import name 'sub' from 'calc'")), []string{"tests/t.py"}, ""},
		{"a red file with one failing test", res(1, tc("tests/t.py::test_a", runner.Passed), tc("tests/t.py::test_b", runner.Failed)), []string{"tests/t.py"}, ""},
		{"a generic red that passes", &runner.Result{Exit: 0, Runner: "generic"}, nil, "already pass"},
		{"a generic red that fails", &runner.Result{Exit: 1, Runner: "generic"}, nil, ""},
		{"a timeout shows nothing", &runner.Result{Exit: -1, TimedOut: true, Runner: "pytest"}, []string{"tests/t.py::test_a"}, "the run timed out"},
		{"an internal error shows nothing", res(3), []string{"tests/t.py::test_a"}, "the run broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := passOnBase(tt.result, tt.ids, base)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || exitcode.Of(err) != exitcode.Refused || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %v, want %q", err, tt.err)
			}
		})
	}
	// the refusal names each test that passes, and only those
	err := passOnBase(res(1, tc("tests/t.py::test_a", runner.Failed), tc("tests/t.py::test_b", runner.Passed)), []string{"tests/t.py::test_a", "tests/t.py::test_b"}, base)
	if lines, _ := exitcode.Lines(err); strings.Join(lines, "\n") != "  tests/t.py::test_b" {
		t.Errorf("details: %q", lines)
	}
}
