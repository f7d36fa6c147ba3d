package lifecycle

import (
	"context"
	"path"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/pytestconfig"
	"github.com/git-tdd/git-tdd/internal/surface"
)

// harnessChanges lists the files of the branch that change how the tests run
// rather than what they test: a conftest.py, pytest's configuration (its
// section of a shared file), a file a [test] freeze glob names that is no test
// (a script the command runs), a Go test file that defines TestMain. Such code
// sees how it was invoked: were red to run part of the suite, a conftest.py
// could fail the branch's tests only then, and a red of tests that already
// pass would be green by the next run. So red runs what green runs.
func harnessChanges(ctx context.Context, wt *gitx.Repo, cfg *config.Config, branch []gitx.RawEntry) ([]string, error) {
	rules := surface.New(cfg.Test.TestPaths, cfg.Test.Freeze)
	entries := make([]surface.Entry, 0, len(branch))
	for _, r := range branch {
		e := surface.Entry{Path: r.Path, Old: r.OldOID, New: r.NewOID}
		if gitx.IsNullOID(e.Old) {
			e.Old = ""
		}
		if gitx.IsNullOID(e.New) {
			e.New = ""
		}
		entries = append(entries, e)
	}
	read := func(oid string) ([]byte, error) {
		blobs, err := wt.Blobs(ctx, []string{oid})
		return blobs[oid], err
	}
	changes, err := rules.Diff(entries, read)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range changes {
		base := path.Base(c.Path)
		switch {
		case base == "conftest.py", isPytestConfig(base):
		case strings.HasSuffix(base, "_test.go"):
			if ok, err := definesTestMain(ctx, wt, branch, c.Path); err != nil || !ok {
				if err != nil {
					return nil, err
				}
				continue
			}
		case pathglob.Any(cfg.Test.Freeze, c.Path) && !pathglob.Any(cfg.Test.TestPaths, c.Path):
		default:
			continue
		}
		out = append(out, c.Path)
	}
	return out, nil
}

func isPytestConfig(base string) bool {
	for _, n := range pytestconfig.Names {
		if base == n {
			return true
		}
	}
	return false
}

var testMain = regexp.MustCompile(`(?m)^func\s+TestMain\s*\(`)

// definesTestMain reports whether the branch's version of a Go test file, or
// the one it replaced, defines TestMain.
func definesTestMain(ctx context.Context, wt *gitx.Repo, branch []gitx.RawEntry, p string) (bool, error) {
	for _, r := range branch {
		if r.Path != p {
			continue
		}
		blobs, err := wt.Blobs(ctx, []string{r.OldOID, r.NewOID})
		if err != nil {
			return false, err
		}
		return testMain.Match(blobs[r.OldOID]) || testMain.Match(blobs[r.NewOID]), nil
	}
	return false, nil
}
