package lifecycle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/jstitle"
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

// reprove proves a TDD cycle again from git objects alone, in temporary
// worktrees and sealed runs. First the red's recorded tests must fail at the red
// commit, as red ran them. Then they must not pass on base, the commit the
// merge lands on, with only the merge's changes to the frozen surface applied
// (surfaceOnBase): what makes them pass must be the branch's code, so a red
// made by a file that shadows working code, or on an old commit of the base,
// proves nothing. Then the whole suite and the lint must pass on tree, the
// merge's result. Nothing of the workflow's own worktree, and nothing of
// state.toml, is used.
func (e *Env) reprove(cfg *config.Config, red *RedCommit, fork, base, tree, label string) (*Proved, error) {
	r := rules(cfg)
	oldFork, err := e.Repo.MergeBase(e.Ctx, red.ID, fork)
	if err != nil {
		return nil, err
	}
	if err := e.checkRed(cfg, r, red, oldFork); err != nil {
		return nil, err
	}
	var onBase string
	var sel []string
	var g errgroup.Group
	g.Go(func() (err error) { onBase, err = e.surfaceOnBase(r, base, tree); return err })
	g.Go(func() (err error) { sel, err = e.redSelection(cfg, red, oldFork); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	pt, err := e.proofWorktree(label, red.ID)
	if err != nil {
		return nil, err
	}
	defer pt.remove()
	start := time.Now()
	if err := pt.checkout(e.Ctx, red.Tree); err != nil {
		return nil, err
	}
	checkout := time.Since(start)
	if err := e.setup(cfg, pt.dir); err != nil {
		return nil, err
	}
	// at the red commit, as red ran them; and where the merge lands, unless
	// that is the red commit's tree
	atRed, onBaseRun, err := e.redRuns(cfg, r, pt, red.Tree, onBase, base, label, sel, checkout)
	if err != nil {
		return nil, err
	}
	if bad := redFails(atRed, red.Failing, ModulesOf(pt.dir, cfg.Test.Env["PYTHONPATH"])); len(bad) > 0 {
		return nil, exitcode.New(exitcode.Refused, "the red does not reproduce at %s: its recorded tests do not fail there", short(red.ID)).
			WithDetail(indent(bad)...)
	}
	if onBaseRun != nil {
		if err := passOnBase(onBaseRun, red.Failing, base); err != nil {
			return nil, err
		}
	}
	res, err := e.proofRun(cfg, r, pt, tree, nil, e.Err)
	if err != nil {
		return nil, err
	}
	if v := CheckGreen(res, red.Failing); v.Kind != KindGreen {
		return nil, exitcode.New(v.Code, "the merged tree does not pass: %s", v.Message).WithDetail(indent(v.List)...)
	}
	if err := e.lint(cfg, pt.dir); err != nil {
		return nil, err
	}
	return &Proved{Red: red.ID, Failing: red.Failing, Passing: len(res.With(runner.Passed)), run: res}, nil
}

// sideBySide is what a whole checkout may cost for the proof on the base to
// run in a worktree of its own, beside the run at the red commit: about the
// start of a test runner, which it saves.
const sideBySide = 150 * time.Millisecond

// redRuns runs the recorded tests (sel) at the red commit, in pt, and on
// the base with the branch's frozen surface (onBase; no run when it is the
// red's tree). The two run side by side, the second in a worktree of its
// own, their output shown one after the other: the proof then costs one run
// of the recorded tests, not two. They run one after the other in pt when
// [worktree] setup commands ran there (two setups at once could share what
// they install), or when a whole checkout (checkout, pt's) costs more than
// a run's start: then pt changes only the files that differ.
func (e *Env) redRuns(cfg *config.Config, r surface.Rules, pt *proofTree, redTree, onBase, base, label string, sel []string, checkout time.Duration) (atRed, atBase *runner.Result, err error) {
	if onBase == redTree {
		atRed, err = e.proofRun(cfg, r, pt, redTree, sel, e.Err)
		return atRed, nil, err
	}
	if len(cfg.Worktree.Setup) > 0 || checkout > sideBySide {
		if atRed, err = e.proofRun(cfg, r, pt, redTree, sel, e.Err); err != nil {
			return nil, nil, err
		}
		atBase, err = e.proofRun(cfg, r, pt, onBase, sel, e.Err)
		return atRed, atBase, err
	}
	other, err := e.proofWorktree(label+"-base", base)
	if err != nil {
		return nil, nil, err
	}
	defer other.remove()
	var outRed, outBase bytes.Buffer
	var g errgroup.Group
	g.Go(func() (err error) { atRed, err = e.proofRun(cfg, r, pt, redTree, sel, &outRed); return err })
	g.Go(func() (err error) { atBase, err = e.proofRun(cfg, r, other, onBase, sel, &outBase); return err })
	err = g.Wait()
	e.Err.Write(outRed.Bytes())
	e.Err.Write(outBase.Bytes())
	return atRed, atBase, err
}

// proofTree is a temporary worktree of a proof.
type proofTree struct {
	dir    string
	wt     *gitx.Repo
	tree   string // what was checked out, when nothing ran since
	remove func()
}

// checkout makes the worktree hold exactly tree, unless it was just
// checked out and nothing ran since.
func (p *proofTree) checkout(ctx context.Context, tree string) error {
	if p.tree == tree {
		return nil
	}
	p.tree = ""
	if err := p.wt.CheckoutTree(ctx, tree); err != nil {
		return err
	}
	p.tree = tree
	return nil
}

// proofWorktree adds a temporary worktree, HEAD detached at commit and
// nothing checked out yet; remove takes it away.
func (e *Env) proofWorktree(label, commit string) (*proofTree, error) {
	dir, err := os.MkdirTemp("", "git-tdd-proof-"+label+"-")
	if err != nil {
		return nil, err
	}
	if err := e.Repo.AddDetachedWorktree(e.Ctx, dir, commit); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &proofTree{dir: dir, wt: e.Repo.At(dir), remove: func() {
		ctx := context.WithoutCancel(e.Ctx)
		e.Repo.RemoveWorktree(ctx, dir, true)
		os.RemoveAll(dir)
	}}, nil
}

// proofRun checks tree out in p and runs the tests (sel: some of them) there,
// their output to out; the frozen surface must be tree's after the run.
func (e *Env) proofRun(cfg *config.Config, r surface.Rules, p *proofTree, tree string, sel []string, out io.Writer) (*runner.Result, error) {
	if err := p.checkout(e.Ctx, tree); err != nil {
		return nil, err
	}
	q := *e // the same command, its diagnostics and the tests' output to out
	q.Err = out
	res, err := q.runTests(cfg, p.dir, sel)
	p.tree = "" // the run may have changed files
	if err != nil {
		return nil, err
	}
	return res, e.unchangedFrom(p.wt, r, tree)
}

// surfaceOnBase is the tree the red is proved on where the merge lands: base
// with what the merge (tree) changes there in the frozen surface (the tests,
// their data and configuration, as merged), and nothing else: no file the
// branch added, changed or deleted outside it.
func (e *Env) surfaceOnBase(r surface.Rules, base, tree string) (string, error) {
	raw, err := e.Repo.ChangedBlobs(e.Ctx, base, tree)
	if err != nil {
		return "", err
	}
	return e.Repo.OverlayTree(e.Ctx, base, frozenEntries(r, raw))
}

// frozenEntries are the entries of a diff that are in the frozen surface.
func frozenEntries(r surface.Rules, raw []gitx.RawEntry) []gitx.RawEntry {
	var keep []gitx.RawEntry
	for _, x := range raw {
		if r.Frozen(x.Path) {
			keep = append(keep, x)
		}
	}
	return keep
}

// passOnBase refuses a red whose recorded tests pass in a run on the base
// with only the branch's frozen surface: then the branch's code is not what
// makes them pass. Any other outcome there (a failure, an error, a test file
// that cannot import, a package that does not build without the branch's
// code) shows that it is; a run that broke or timed out shows nothing.
func passOnBase(r *runner.Result, ids []string, base string) error {
	where := fmt.Sprintf("on %s (the base the merge lands on, with only the branch's tests and test configuration)", short(base))
	switch {
	case r.TimedOut:
		return exitcode.New(exitcode.Refused, "the red cannot be proved %s: the run timed out", where)
	case r.Exit == 3 || r.Exit < 0:
		return exitcode.New(exitcode.Refused, "the red cannot be proved %s: the run broke (%s)", where, exitMeaning(r))
	}
	passing := passingOf(r, ids)
	if len(passing) == 0 {
		return nil
	}
	return exitcode.New(exitcode.Refused, "the recorded red tests already pass on %s (the base the merge lands on, with only the branch's tests and test configuration): the branch's code is not what makes them pass", short(base)).
		WithDetail(indent(passing)...)
}

// passingOf lists the recorded red tests that pass in a run: a test id that
// passed, a test file whose tests were collected and all passed (as green
// judges them); a generic red (no ids) passes when the command does.
func passingOf(r *runner.Result, ids []string) []string {
	if len(ids) == 0 {
		if r.Exit == 0 {
			return []string{"the test command passes"}
		}
		return nil
	}
	var out []string
	for _, id := range ids {
		if isFileID(id) {
			if missing, failing := checkRedFile(r, id, nil, nil); len(missing) == 0 && len(failing) == 0 {
				out = append(out, id)
			}
			continue
		}
		if t, ok := r.Find(id); ok && t.Outcome == runner.Passed {
			out = append(out, id)
		}
	}
	return out
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

var goTestID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[^-\s]\S*\.(?:Test|Example|Fuzz)\S*$`)
})

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
	var bad, ids []string
	for _, id := range red.Failing {
		switch {
		case cfg.Test.Runner == "go" && !goTestID().MatchString(id):
			bad = append(bad, id+" is not a go test")
		case cfg.Test.Runner == "junit" && jstitle.IsSource(testFileOf(id)) && pathglob.Any(cfg.Test.TestPaths, testFileOf(id)):
			// a JavaScript test its report named with its file: its title
			// path must be new on the branch, as red judged it
			ids = append(ids, id)
		case cfg.Test.Runner == "go" || cfg.Test.Runner == "junit" && id != "" && !strings.HasPrefix(id, "-"):
			// ids from a report, never given to the command: that they fail
			// at the red commit and pass at the merge is the proof
		case strings.HasPrefix(id, "-") || !pathglob.Any(cfg.Test.TestPaths, testFileOf(id)):
			bad = append(bad, id+" is not a test of a test file")
		default:
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		more, err := e.redTestsChanged(red, oldFork, ids)
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

// redTestsChanged checks that each of the recorded tests ids (pytest's, or
// JavaScript tests with their file) is the branch's own: in the red commit,
// new or changed since oldFork, and not hollow.
func (e *Env) redTestsChanged(red *RedCommit, oldFork string, ids []string) ([]string, error) {
	var files []string
	for _, id := range ids {
		files = append(files, testFileOf(id))
	}
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
	for _, id := range ids {
		f := testFileOf(id)
		b, n := base[f], now[f]
		src, ok := blobs[n.OID]
		switch {
		case !ok || n.Mode == gitx.ModeSymlink:
			bad = append(bad, id+": its file is not in the red commit")
		case isFileID(id) && b.OID == n.OID:
			bad = append(bad, id+": the file did not change on the branch")
		case !isFileID(id) && jstitle.IsSource(f) && !TestChanged(f, id, blobs[b.OID], src):
			bad = append(bad, id+": not new on the branch: its file had a test of that title path")
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
			// its file cannot import what it tests yet
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
		if t.File == file && (t.Collection && mods.NaturalFile(t) || !t.Collection && t.Outcome == runner.Failed) {
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
