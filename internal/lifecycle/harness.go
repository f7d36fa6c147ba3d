package lifecycle

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/pytestconfig"
	"github.com/git-tdd/git-tdd/internal/surface"
)

// harnessChanges lists the files of the branch that change how the tests run
// rather than what they test: a conftest.py, pytest's configuration (its
// section of a shared file), a file a [test] freeze glob names that is no test
// (a script the command runs), a Python file of the frozen surface that loads
// pytest plugins or defines pytest hooks, a Go test file that defines TestMain
// or an init function. Such code sees how it was invoked: were red to run part
// of the suite, a conftest.py could fail the branch's tests only then, and a
// red of tests that already pass would be green by the next run. So red runs
// what green runs. (A test can read its invocation too, and no static check
// finds every way: the human reads the tests at merge.)
func harnessChanges(ctx context.Context, wt *gitx.Repo, cfg *config.Config, branch []gitx.RawEntry) ([]string, error) {
	rules := surface.New(cfg.Test.TestPaths, cfg.Test.FreezeGlobs())
	entries := make([]surface.Entry, 0, len(branch))
	newBlob := map[string]string{}
	for _, r := range branch {
		e := surface.Entry{Path: r.Path, Old: r.OldOID, New: r.NewOID}
		if gitx.IsNullOID(e.Old) {
			e.Old = ""
		}
		if gitx.IsNullOID(e.New) {
			e.New = ""
		}
		entries = append(entries, e)
		newBlob[r.Path] = e.New
	}
	read := func(oid string) ([]byte, error) {
		blobs, err := wt.Blobs(ctx, []string{oid})
		return blobs[oid], err
	}
	changes, err := rules.Diff(entries, read)
	if err != nil {
		return nil, err
	}
	var out, code, oids []string
	for _, c := range changes {
		base := path.Base(c.Path)
		switch {
		case base == "conftest.py", isPytestConfig(base):
		case pathglob.Any(cfg.Test.FreezeGlobs(), c.Path) && !pathglob.Any(cfg.Test.TestPaths, c.Path):
		case (strings.HasSuffix(base, ".py") || strings.HasSuffix(base, "_test.go")) && newBlob[c.Path] != "":
			code, oids = append(code, c.Path), append(oids, newBlob[c.Path])
			continue
		default:
			continue
		}
		out = append(out, c.Path)
	}
	blobs, err := wt.Blobs(ctx, oids)
	if err != nil {
		return nil, err
	}
	for i, p := range code {
		if hooksTheRun(p, blobs[oids[i]]) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// pytestHooks finds what makes a Python file part of pytest's machinery: a
// pytest_plugins list (plugins loaded by a test module), a pytest_* hook or a
// hookimpl, wherever in the text they are.
var pytestHooks = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bpytest_plugins\b|\bdef\s+pytest_\w+|\bhookimpl\b`)
})

// hooksTheRun reports whether a test file's text takes part in how the tests
// run: pytest's machinery (pytestHooks), or a Go TestMain or init function
// (parsed, so comments and layout do not hide one; a file that does not
// parse counts).
func hooksTheRun(p string, text []byte) bool {
	if strings.HasSuffix(p, ".py") {
		return pytestHooks().Match(text)
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, text, parser.SkipObjectResolution)
	if err != nil {
		return true
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && (fn.Name.Name == "TestMain" || fn.Name.Name == "init") {
			return true
		}
	}
	return false
}

func isPytestConfig(base string) bool {
	for _, n := range pytestconfig.Names {
		if base == n {
			return true
		}
	}
	return false
}
