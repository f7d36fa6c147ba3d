package lifecycle

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/runner"
)

// Scope is what red runs: the test files (pytest) or the test functions of
// their packages (go) this branch added or changed. The verdict only depends on
// those (DESIGN §5), so a suite of minutes costs seconds at red; green and
// merge still run everything.
type Scope struct {
	Select   []string // pytest paths, or go test function names
	Packages []string // go: the packages to test instead of the command's
	// Why says what runs: the scoped files, or why the whole suite runs.
	Why string
}

// Scoped reports whether the scope narrows the run.
func (s Scope) Scoped() bool { return len(s.Select) > 0 }

// RedScope decides what red runs in dir from the branch's changed test files
// and their blobs (old and new, by object id); blobs may be nil for pytest.
func RedScope(cfg *config.Config, dir string, branch []gitx.RawEntry, changed map[string]bool, blobs map[string][]byte) Scope {
	if cfg.Test.RedScope == "all" {
		return Scope{Why: "red_scope = \"all\""}
	}
	var files []string
	for f := range changed {
		files = append(files, f)
	}
	sort.Strings(files)
	switch cfg.Test.Runner {
	case "pytest":
		return pytestScope(cfg.Test.Command, dir, files)
	case "go":
		return goScope(branch, files, blobs)
	}
	return Scope{Why: "the " + cfg.Test.Runner + " runner cannot run a part of the suite"}
}

// pytestScope keeps to the paths the command names, so that red never runs a
// test the whole suite would not; the runner puts the selection in their place.
func pytestScope(command []string, dir string, files []string) Scope {
	var sel []string
	roots := runner.PytestPaths(command, dir)
	for _, f := range files {
		base := path.Base(f)
		if !strings.HasSuffix(f, ".py") || base == "conftest.py" || base == "__init__.py" || !runner.PytestOverlaps(roots, f) {
			continue
		}
		sel = append(sel, f)
	}
	if len(sel) == 0 {
		return Scope{Why: noTestFile(files)}
	}
	return Scope{Select: sel, Why: fmt.Sprintf("the %s this branch changed: %s", plural(len(sel), "test file"), strings.Join(sel, " "))}
}

// goScope runs the test functions that are new or changed in the branch's
// changed _test.go files, in their packages only.
func goScope(branch []gitx.RawEntry, files []string, blobs map[string][]byte) Scope {
	byPath := map[string]gitx.RawEntry{}
	for _, r := range branch {
		byPath[r.Path] = r
	}
	var names, pkgs []string
	seenName, seenPkg := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		r, ok := byPath[f]
		if !strings.HasSuffix(f, "_test.go") || !ok {
			continue
		}
		for _, n := range changedGoTests(blobs[r.OldOID], blobs[r.NewOID]) {
			if !seenName[n] {
				seenName[n] = true
				names = append(names, n)
			}
			if dir := "./" + path.Dir(f); !seenPkg[dir] {
				seenPkg[dir] = true
				pkgs = append(pkgs, dir)
			}
		}
	}
	if len(names) == 0 {
		return Scope{Why: noTestFile(files)}
	}
	return Scope{Select: names, Packages: pkgs,
		Why: fmt.Sprintf("the %s this branch changed, in %s", plural(len(names), "test function"), strings.Join(pkgs, " "))}
}

// changedGoTests are the Test, Fuzz and Example functions of now whose
// definition is not the same in base.
func changedGoTests(base, now []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", now, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !isGoTest(fn.Name.Name) {
			continue
		}
		if TestChanged("x_test.go", fn.Name.Name, base, now) {
			out = append(out, fn.Name.Name)
		}
	}
	return out
}

func isGoTest(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func noTestFile(changed []string) string {
	if len(changed) == 0 {
		return "this branch changed no test file; running the whole suite"
	}
	return "this branch changed no test the runner can select; running the whole suite"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// collectedNothing reports whether a scoped run found no test to run: the
// files it was given hold none.
func collectedNothing(res *runner.Result) bool {
	return res.Exit == 5 || (res.Exit == 0 && len(res.Tests) == 0)
}
