package lifecycle

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/surface"
	"github.com/git-tdd/git-tdd/internal/term"
	"golang.org/x/sync/errgroup"
)

// Proved is what a re-proof established.
type Proved struct {
	Red     string         `json:"red"`     // the red commit
	Failing []string       `json:"failing"` // its recorded tests, which fail there again
	Passing int            `json:"passing"` // tests that pass on the merged tree
	run     *runner.Result // the run on the merged tree
}

func (p *Proved) String() string {
	return fmt.Sprintf("the red at %s fails (%s), the merge passes (%s)", short(p.Red), redCount(p.Failing), term.Count(p.Passing, "test", "tests"))
}

// reprove proves a TDD cycle again from git objects alone, in a temporary
// worktree and sealed runs. First the red's recorded tests must fail at the red
// commit and, when the red changed existing code, also on the code the branch
// started from (the fork point's files, with the red commit's frozen surface
// and the files it added): breaking code that already worked cannot make a
// red. Then the whole suite and the lint must pass on tree, the merge's
// result. Nothing of the workflow's own worktree, and nothing of state.toml,
// is used.
func (e *Env) reprove(cfg *config.Config, red *RedCommit, fork, tree, label string) (*Proved, error) {
	r := rules(cfg)
	oldFork, err := e.Repo.MergeBase(e.Ctx, red.ID, fork)
	if err != nil {
		return nil, err
	}
	if err := e.checkRed(cfg, r, red, oldFork); err != nil {
		return nil, err
	}
	onBase, err := e.redOnBase(r, red, oldFork)
	if err != nil {
		return nil, err
	}
	sel, err := e.redSelection(cfg, red, oldFork)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "git-tdd-proof-"+label+"-")
	if err != nil {
		return nil, err
	}
	if err := e.Repo.AddDetachedWorktree(e.Ctx, dir, red.ID); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer func() {
		ctx := context.WithoutCancel(e.Ctx)
		e.Repo.RemoveWorktree(ctx, dir, true)
		os.RemoveAll(dir)
	}()
	tmp := e.Repo.At(dir)
	// at the red commit, as red ran them; and, when the red changed existing
	// code, on the code the branch started from too
	proofs := []struct{ tree, where string }{{red.Tree, "at " + short(red.ID)}}
	if onBase != red.Tree {
		proofs = append(proofs, struct{ tree, where string }{onBase, "on the code the branch started from (the red commit without its changes to existing code)"})
	}
	for i, p := range proofs {
		if err := tmp.CheckoutTree(e.Ctx, p.tree); err != nil {
			return nil, err
		}
		if i == 0 {
			if err := e.setup(cfg, dir); err != nil {
				return nil, err
			}
		}
		res, err := e.runTests(cfg, dir, sel)
		if err != nil {
			return nil, err
		}
		if err := e.unchangedFrom(tmp, r, p.tree); err != nil {
			return nil, err
		}
		if bad := redFails(res, red.Failing, ModulesOf(dir, cfg.Test.Env["PYTHONPATH"])); len(bad) > 0 {
			return nil, exitcode.New(exitcode.Refused, "the red does not reproduce %s: its recorded tests do not fail there", p.where).
				WithDetail(indent(bad)...)
		}
	}
	if err := tmp.CheckoutTree(e.Ctx, tree); err != nil {
		return nil, err
	}
	res, err := e.runTests(cfg, dir, nil)
	if err != nil {
		return nil, err
	}
	if err := e.unchangedFrom(tmp, r, tree); err != nil {
		return nil, err
	}
	if v := CheckGreen(res, red.Failing); v.Kind != KindGreen {
		return nil, exitcode.New(v.Code, "the merged tree does not pass: %s", v.Message).WithDetail(indent(v.List)...)
	}
	if err := e.lint(cfg, dir); err != nil {
		return nil, err
	}
	return &Proved{Red: red.ID, Failing: red.Failing, Passing: len(res.With(runner.Passed)), run: res}, nil
}

// redSelection is what the red's tests are proved with: its recorded tests,
// or the whole suite when the branch up to the red changed how tests run
// (harnessChanges), as red itself then runs: a conftest.py that fails tests
// only when pytest is given their ids would otherwise prove a red typed by
// hand.
func (e *Env) redSelection(cfg *config.Config, red *RedCommit, oldFork string) ([]string, error) {
	raw, err := e.Repo.ChangedBlobs(e.Ctx, oldFork, red.Tree)
	if err != nil {
		return nil, err
	}
	harness, err := harnessChanges(e.Ctx, e.Repo, cfg, raw)
	if err != nil || len(harness) > 0 {
		return nil, err
	}
	return red.Failing, nil
}

// redOnBase is the tree the red's tests are proved on: oldFork's, with what
// the red commit changed in the frozen surface and the files it added (a stub
// in a new module, new test helpers), but not its changes to existing code.
func (e *Env) redOnBase(r surface.Rules, red *RedCommit, oldFork string) (string, error) {
	raw, err := e.Repo.ChangedBlobs(e.Ctx, oldFork, red.Tree)
	if err != nil {
		return "", err
	}
	var keep []gitx.RawEntry
	for _, x := range raw {
		if r.Frozen(x.Path) || gitx.IsNullOID(x.OldOID) {
			keep = append(keep, x)
		}
	}
	if len(keep) == len(raw) {
		return red.Tree, nil
	}
	return e.Repo.OverlayTree(e.Ctx, oldFork, keep)
}

var goTestID = regexp.MustCompile(`^[^-\s]\S*\.(?:Test|Example|Fuzz)\S*$`)

// checkRed refuses a red commit that git tdd red would not have made: a
// test runner that reports each test, but no failing test named; an id that
// is not a test file of the red commit (or that pytest would take for an
// option); a test neither new nor changed on the branch; a hollow one.
func (e *Env) checkRed(cfg *config.Config, r surface.Rules, red *RedCommit, oldFork string) error {
	if cfg.Test.Runner == "generic" {
		return nil
	}
	if len(red.Failing) == 0 {
		return exitcode.New(exitcode.Refused, "the red commit %s names no failing test (%s)", short(red.ID), FailingTrailer)
	}
	var bad, files []string
	for _, id := range red.Failing {
		switch {
		case cfg.Test.Runner == "go" && !goTestID.MatchString(id):
			bad = append(bad, id+" is not a go test")
		case cfg.Test.Runner == "go" || cfg.Test.Runner == "junit" && id != "" && !strings.HasPrefix(id, "-"):
			// ids from a report, never given to the command: that they fail
			// at the red commit and pass at the merge is the proof
		case strings.HasPrefix(id, "-") || !pathglob.Any(cfg.Test.TestPaths, testFileOf(id)):
			bad = append(bad, id+" is not a test of a test file")
		default:
			files = append(files, testFileOf(id))
		}
	}
	if len(files) > 0 {
		more, err := e.redTestsChanged(red, oldFork, files)
		if err != nil {
			return err
		}
		bad = append(bad, more...)
	}
	if len(bad) > 0 {
		return exitcode.New(exitcode.Refused, "the red commit %s is not a red git tdd red would have made", short(red.ID)).WithDetail(indent(bad)...)
	}
	return nil
}

// redTestsChanged checks that each recorded pytest test is the branch's own:
// in the red commit, new or changed since oldFork, and not hollow.
func (e *Env) redTestsChanged(red *RedCommit, oldFork string, files []string) ([]string, error) {
	var base, now map[string]gitx.TreeEntry
	var g errgroup.Group
	g.Go(func() (err error) { base, err = e.Repo.LsTree(e.Ctx, oldFork, files); return err })
	g.Go(func() (err error) { now, err = e.Repo.LsTree(e.Ctx, red.Tree, files); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var oids []string
	for _, f := range files {
		for _, e := range []gitx.TreeEntry{base[f], now[f]} {
			if e.OID != "" {
				oids = append(oids, e.OID)
			}
		}
	}
	blobs, err := e.Repo.Blobs(e.Ctx, oids)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, id := range red.Failing {
		f := testFileOf(id)
		b, n := base[f], now[f]
		src, ok := blobs[n.OID]
		switch {
		case !ok || n.Mode == gitx.ModeSymlink:
			bad = append(bad, id+": its file is not in the red commit")
		case isFileID(id) && b.OID == n.OID:
			bad = append(bad, id+": the file did not change on the branch")
		case !isFileID(id) && !TestChanged(f, id, blobs[b.OID], src):
			bad = append(bad, id+": not new on the branch, and its body did not change")
		case !isFileID(id) && Hollow(f, id, src):
			bad = append(bad, id+": hollow, it fails without calling the code")
		}
	}
	return bad, nil
}

// testFileOf is the file of a pytest id ("tests/t.py::test_x[a::b]").
func testFileOf(id string) string {
	f, _, _ := strings.Cut(id, "::")
	return f
}

// redFails says which recorded red tests do not fail in a run of them: a test
// id must fail by assertion; a test file must fail to import something of the
// repository or hold a failing test. A red of the generic runner (no ids)
// needs the command to fail.
func redFails(r *runner.Result, ids []string, mods Modules) []string {
	switch {
	case r.TimedOut:
		return []string{"the run timed out"}
	case r.Exit == 3 || r.Exit < 0:
		return []string{"the run broke (" + exitMeaning(r) + ")"}
	case len(ids) == 0 && r.Exit == 0:
		return []string{"the tests pass"}
	}
	var bad []string
	for _, id := range ids {
		if isFileID(id) {
			if !fileFails(r, id, mods) {
				bad = append(bad, id+" imports, and none of its tests fails")
			}
			continue
		}
		t, ok := r.Find(id)
		switch {
		case ok && t.Outcome == runner.Failed:
		case !ok && fileFails(r, testFileOf(id), mods):
			// on the code the branch started from, its file cannot import yet
		case !ok:
			bad = append(bad, id+" was not run (not found)")
		default:
			bad = append(bad, id+" "+string(t.Outcome))
		}
	}
	return bad
}

func fileFails(r *runner.Result, file string, mods Modules) bool {
	for _, t := range r.Tests {
		if t.File == file && (t.Collection && mods.NaturalCause(t.Message) || !t.Collection && t.Outcome == runner.Failed) {
			return true
		}
	}
	return false
}

// frozenAtTip refuses a tip whose frozen surface is not the red commit's, or
// whose branch added a symlink the tests would follow out of it.
func (e *Env) frozenAtTip(cfg *config.Config, red *RedCommit, fork string) error {
	r := rules(cfg)
	branch, err := e.Repo.ChangedBlobs(e.Ctx, fork, red.TipTree)
	if err != nil {
		return err
	}
	if err := branchHazards(e.Ctx, e.Repo, r, cfg, branch, red.TipTree); err != nil {
		return err
	}
	changes, err := sinceRed(e.Ctx, e.Repo, r, red, red.TipTree, fork)
	if err != nil || len(changes) == 0 {
		return err
	}
	return surfaceError(fmt.Sprintf("the frozen test surface at the tip is not the red commit's (%s)", short(red.ID)), changes).
		WithHint("put the tests back as the red had them, or prove the new ones with git tdd red and git tdd green")
}

// labelOf makes an issue name part of a temporary directory's name.
func labelOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator {
			return '-'
		}
		return r
	}, s)
}
