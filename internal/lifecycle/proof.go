package lifecycle

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/surface"
	"golang.org/x/sync/errgroup"
)

// The trailers of the lifecycle's commits: they are what the proofs read
// back from git, never state.toml.
const (
	PhaseTrailer   = commitmsg.PhaseKey
	FailingTrailer = commitmsg.FailingKey
)

// RedCommit is a red as the branch's history records it.
type RedCommit struct {
	ID, Tree string
	Failing  []string // the TDD-Failing trailers: test ids, or test files for a natural red
	TipTree  string   // the tree of the tip it was found from
}

// LastRed finds the newest commit with "TDD-Phase: red" on the first-parent
// chain from tip back to fork; nil when there is none.
func LastRed(ctx context.Context, repo *gitx.Repo, fork, tip string) (*RedCommit, error) {
	commits, err := repo.FirstParentTrailers(ctx, fork+".."+tip, PhaseTrailer, FailingTrailer)
	if err != nil {
		return nil, err
	}
	for _, c := range commits {
		for _, v := range c.Trailers[PhaseTrailer] {
			if v == "red" {
				return &RedCommit{ID: c.ID, Tree: c.Tree, Failing: c.Trailers[FailingTrailer], TipTree: commits[0].Tree}, nil
			}
		}
	}
	return nil, nil
}

// forkPoint is where the branch left its base, from the refs rather than
// state.toml: the merge base of the base branch and tip. When the base branch
// is gone, the recorded base commit serves if it is an ancestor of tip.
func (e *Env) forkPoint(w *state.Workflow, tip string) (string, error) {
	if fork, err := e.Repo.MergeBase(e.Ctx, "refs/heads/"+w.Base, tip); err == nil {
		return fork, nil
	}
	if ok, err := e.Repo.IsAncestor(e.Ctx, w.BaseCommit, tip); err == nil && ok {
		return w.BaseCommit, nil
	}
	return "", exitcode.New(exitcode.Usage, "cannot tell where %s left %s: the base branch is gone and the recorded base commit is not in its history", w.Branch, w.Base)
}

// rules are the frozen surface's rules of a configuration: besides the test
// paths, [test] freeze and a JavaScript runner's files (config.JSFrozen),
// what the test command itself reads in the repository (a script it names, a
// Makefile, the whole tox.ini, noxfile.py).
func rules(cfg *config.Config) surface.Rules {
	return surface.New(cfg.Test.TestPaths, append(cfg.Test.FreezeGlobs(), commandFiles(cfg.Test.Command)...))
}

// commandFiles are the paths in the repository a command reads: the relative
// paths among its arguments, and the files its program reads by name.
func commandFiles(argv []string) []string {
	implicit := map[string][]string{
		"make": {"Makefile", "makefile", "GNUmakefile"}, "gmake": {"Makefile", "makefile", "GNUmakefile"},
		"tox": {"tox.ini"}, "nox": {"noxfile.py"},
	}
	var out []string
	for i, a := range argv {
		if i == 0 {
			out = append(out, implicit[path.Base(a)]...)
		}
		if a == "" || strings.HasPrefix(a, "-") || path.IsAbs(a) || strings.Contains(a, "://") {
			continue
		}
		if p := path.Clean(a); p != "." && !strings.HasPrefix(p, "../") {
			out = append(out, p)
		}
	}
	return out
}

// importRoots are the directories of the repository Python imports from in
// a sealed run: its top level, src, and the [test] env PYTHONPATH entries.
func importRoots(cfg *config.Config) []string {
	roots := []string{"", "src"}
	for _, p := range filepath.SplitList(cfg.Test.Env["PYTHONPATH"]) {
		if p = path.Clean(filepath.ToSlash(p)); p != "." && !path.IsAbs(p) && !strings.HasPrefix(p, "../") {
			roots = append(roots, p)
		}
	}
	return roots
}

// branchHazards refuses what a branch adds or changes (entries, on the way to
// tree) that would let code run under the tests that no freeze or reviewer
// covers: symlinks out of the frozen surface, compiled code, import hooks, a
// module standing in for the test runner, a nested repository.
func branchHazards(ctx context.Context, repo *gitx.Repo, r surface.Rules, cfg *config.Config, entries []gitx.RawEntry, tree string) error {
	found, err := linkEscapes(ctx, repo, r, entries, tree)
	if err != nil {
		return err
	}
	var files []surface.Hazard
	for _, e := range entries {
		if !gitx.IsNullOID(e.NewOID) {
			files = append(files, surface.Hazard{Path: e.Path, Mode: e.NewMode})
		}
	}
	found = append(found, surface.Hazards(files, importRoots(cfg))...)
	if len(found) == 0 {
		return nil
	}
	surface.Sort(found)
	return surfaceError("the branch adds what would run under the tests without anyone reading it; nothing was recorded", found).
		WithHint("commit source, not links, compiled files or package metadata; remove what the test runner would pick up by itself")
}

// frozenDiff lists how the frozen surface of tree b differs from tree a's.
func frozenDiff(ctx context.Context, repo *gitx.Repo, r surface.Rules, a, b string) ([]surface.Change, error) {
	raw, err := repo.ChangedBlobs(ctx, a, b)
	if err != nil {
		return nil, err
	}
	entries := make([]surface.Entry, 0, len(raw))
	for _, e := range raw {
		old, next := e.OldOID, e.NewOID
		if gitx.IsNullOID(old) || !gitx.IsBlobMode(e.OldMode) {
			old = ""
		}
		if gitx.IsNullOID(next) || !gitx.IsBlobMode(e.NewMode) {
			next = ""
		}
		if old == next {
			continue // a mode change
		}
		entries = append(entries, surface.Entry{Path: e.Path, Old: old, New: next})
	}
	return r.Diff(entries, func(oid string) ([]byte, error) {
		blobs, err := repo.Blobs(ctx, []string{oid})
		if err != nil {
			return nil, err
		}
		return blobs[oid], nil
	})
}

// sinceRed lists how tree's frozen surface differs from the red commit's,
// leaving out what came from the base: after the base is merged into the
// branch, a path may hold the base's version if the red had the version the
// branch started from.
func sinceRed(ctx context.Context, repo *gitx.Repo, r surface.Rules, red *RedCommit, tree, fork string) ([]surface.Change, error) {
	changes, err := frozenDiff(ctx, repo, r, red.Tree, tree)
	if err != nil || len(changes) == 0 {
		return changes, err
	}
	oldFork, err := repo.MergeBase(ctx, red.ID, fork)
	if err != nil || oldFork == fork {
		return changes, nil
	}
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	revs := []string{oldFork, fork, red.Tree, tree}
	at := make([]map[string]gitx.TreeEntry, len(revs))
	var g errgroup.Group
	for i, rev := range revs {
		g.Go(func() (err error) { at[i], err = repo.LsTree(ctx, rev, paths); return err })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	same := func(a, b map[string]gitx.TreeEntry, p string) bool {
		x, okx := a[p]
		y, oky := b[p]
		return okx == oky && x.OID == y.OID
	}
	var kept []surface.Change
	for _, c := range changes {
		if same(at[2], at[0], c.Path) && same(at[3], at[1], c.Path) {
			continue // the base's change, merged in
		}
		if _, onBase := at[1][c.Path]; onBase && c.Note == "" {
			c.Kind, c.Note = surface.Changed, "not as the base has it"
		}
		kept = append(kept, c)
	}
	return kept, nil
}

// prepared is what a gate establishes before its run.
type prepared struct {
	fork   string         // where the branch left its base
	cfg    *config.Config // as committed there
	rules  surface.Rules
	staged *gitx.Staged // the working tree, staged before the run; closed by the caller
	red    *RedCommit   // the last red, when asked for
	// how the frozen surface of the staged tree differs from the red's,
	// when there is a red
	sinceRed []surface.Change
	branch   []gitx.RawEntry // what the branch changed: the fork point against the staged tree
	signs    chan bool       // whether the worktree signs commits: asked while the tests run
	ahead    *ahead          // the confined run, prepared while staging
	move     *gitx.HeadMove  // a draft's move of HEAD, aborted by close unless committed
	idents   chan idents     // who commits, asked while the tests run
}

type idents struct {
	gitx.Idents
	err error
}

// sign waits for the answer to whether commits are signed.
func (p *prepared) sign() bool {
	v := <-p.signs
	p.signs <- v
	return v
}

// draft is a gate's commit written while the frozen surface is checked after
// the run: both are git processes, and side by side they cost one. A draft
// the gate does not use is an object nothing refers to.
type draft struct {
	commit string
	move   *gitx.HeadMove // HEAD's move to it, prepared; nil: not started
	err    error
}

// draft writes the commit of msg on head, and prepares HEAD's move to it,
// unless it is to be signed: a signature is asked for on the terminal, where
// nothing else of ours may run. The git that moves HEAD starts first, so that
// its start overlaps the commit's; a move not committed is aborted by close.
func (p *prepared) draft(e *Env, wt *gitx.Repo, head, msg string) *draft {
	if p.sign() {
		return nil
	}
	move, merr := wt.StartHeadMove(e.Ctx, msg)
	var c string
	var err error
	if ids := <-p.idents; ids.err == nil {
		c, err = wt.DraftCommit(e.Ctx, head, p.staged, msg, ids.Idents)
	} else {
		c, err = wt.CommitStaged(e.Ctx, head, p.staged, msg, false)
	}
	d := &draft{commit: c, err: err}
	if merr != nil {
		return d // advance moves HEAD the plain way
	}
	p.move = move
	if err == nil {
		d.err = move.Prepare(head, c)
		d.move = move
	}
	return d
}

// advance commits the staged tree on head with msg (the draft of it, if
// there is one) and moves HEAD there.
func (e *Env) advance(wt *gitx.Repo, head string, p *prepared, msg string, d *draft) (string, error) {
	if d == nil {
		c, err := wt.CommitStaged(e.Ctx, head, p.staged, msg, p.sign())
		d = &draft{commit: c, err: err}
	}
	if d.err != nil {
		return "", d.err
	}
	if d.move != nil {
		return d.commit, wt.FinishHeadMove(e.Ctx, d.move, p.staged)
	}
	return d.commit, wt.MoveHead(e.Ctx, head, d.commit, p.staged, msg)
}

// prepare finds the fork point, the configuration and (withRed) the last
// red, and stages the working tree, the independent git calls side by side:
// they are most of a gate's own time. Files that git ignores but the test
// runner would load are refused: no proof can rest on a file in no commit.
func (e *Env) prepare(w *state.Workflow, wt *gitx.Repo, head string, withRed bool) (*prepared, error) {
	p := &prepared{signs: make(chan bool, 1)}
	go func() {
		// whether to sign, and the key the run's sandbox denies
		s, err := e.signing(wt)
		p.signs <- s.Sign && err == nil
	}()
	var ignored []string
	var g errgroup.Group
	g.Go(func() (err error) {
		if p.fork, err = e.forkPoint(w, head); err != nil {
			return err
		}
		var h errgroup.Group
		h.Go(func() (err error) {
			if p.cfg, err = e.Config(p.fork); err == nil {
				p.ahead = e.confineAhead(p.cfg, w.Worktree, p.cfg.Test.Network)
			}
			return err
		})
		if withRed {
			h.Go(func() (err error) { p.red, err = LastRed(e.Ctx, wt, p.fork, head); return err })
		}
		return h.Wait()
	})
	g.Go(func() (err error) { ignored, err = wt.Ignored(e.Ctx); return err })
	g.Go(func() (err error) { p.staged, err = wt.Stage(e.Ctx); return err })
	if err := g.Wait(); err != nil {
		p.close(e)
		return nil, err
	}
	e.ahead = p.ahead
	p.rules = rules(p.cfg)
	if loaded := p.rules.IgnoredLoaded(wt.Top, ignored); len(loaded) > 0 {
		p.close(e)
		return nil, surfaceError("files the tests depend on are in no commit", loaded).
			WithHint("commit them (git add -f), or remove them; an ignore rule does not keep a file from the test runner")
	}
	// what the branch changed, and what changed since the red, side by side;
	// the branch's hazards are said first
	var branchErr, redErr error
	var h sync.WaitGroup
	if p.red != nil {
		h.Go(func() { p.sinceRed, redErr = sinceRed(e.Ctx, wt, p.rules, p.red, p.staged.Tree, p.fork) })
	}
	if p.branch, branchErr = wt.ChangedBlobs(e.Ctx, p.fork, p.staged.Tree); branchErr == nil {
		branchErr = branchHazards(e.Ctx, wt, p.rules, p.cfg, p.branch, p.staged.Tree)
	}
	h.Wait()
	if err := cmp.Or(branchErr, redErr); err != nil {
		p.close(e)
		return nil, err
	}
	// who commits, for the draft: asked beside the tests, which leave a
	// processor free, not beside the staging, which does not
	p.idents = make(chan idents, 1)
	go func() {
		ids, err := wt.Idents(e.Ctx)
		p.idents <- idents{ids, err}
	}()
	return p, nil
}

func (p *prepared) close(e *Env) {
	if p.move != nil {
		p.move.Abort()
	}
	if p.staged != nil {
		p.staged.Close()
	}
	p.ahead.close(e.later)
	if e.ahead == p.ahead {
		e.ahead = nil
	}
}

// unchangedSince refuses when the frozen surface of the working tree is no
// longer what was staged before the run.
func (e *Env) unchangedSince(wt *gitx.Repo, r surface.Rules, before *gitx.Staged) error {
	changed, err := before.Changed(e.Ctx)
	if err != nil || !changed {
		return err
	}
	return e.unchangedFrom(wt, r, before.Tree)
}

// unchangedFrom refuses when the frozen surface of the working tree is no
// longer tree's.
func (e *Env) unchangedFrom(wt *gitx.Repo, r surface.Rules, tree string) error {
	after, err := wt.WorktreeTree(e.Ctx)
	if err != nil {
		return err
	}
	if after == tree {
		return nil
	}
	changes, err := frozenDiff(e.Ctx, wt, r, tree, after)
	if err != nil || len(changes) == 0 {
		return err
	}
	return surfaceError("the frozen test surface changed during the run; nothing was recorded", changes).
		WithHint("a test or configuration that rewrites itself cannot be proved; make it stop, then run the gate again")
}

func surfaceError(msg string, changes []surface.Change) *exitcode.Error {
	detail := make([]string, len(changes))
	for i, c := range changes {
		detail[i] = "  " + c.String()
	}
	return exitcode.New(exitcode.Refused, "%s", msg).WithDetail(detail...)
}

// sealed is the environment of the gates' test runs: the caller's, without
// the variables that inject code, plus the committed [test] env.
func (e *Env) sealed(cfg *config.Config) []string {
	return runner.Seal(os.Environ(), cfg.Test.Env)
}

// runTests runs the configured tests in dir, sealed, streaming to Err; sel
// limits the run to some tests.
func (e *Env) runTests(cfg *config.Config, dir string, sel []string) (*runner.Result, error) {
	if !runner.CanSelect(cfg.Test.Runner) {
		sel = nil // it runs everything; the verdict looks the tests up in the report
	}
	label := ""
	if len(sel) > 0 {
		label = "(" + strings.Join(sel, " ") + ")"
	}
	return e.runSpec(cfg, dir, sel, nil, label)
}

// runSpec runs the test command on sel (all when empty), in packages instead
// of the command's own for go, saying what runs.
func (e *Env) runSpec(cfg *config.Config, dir string, sel, packages []string, label string) (*runner.Result, error) {
	what := strings.Join(cfg.Test.Command, " ")
	if label != "" {
		what += " " + label
	}
	fmt.Fprintf(e.Err, "git-tdd: running %s in %s\n", what, dir)
	return e.run(cfg, runner.Spec{Command: cfg.Test.Command, Runner: cfg.Test.Runner, Select: sel, Packages: packages,
		Timeout: cfg.Test.Timeout.Duration, Dir: dir, Out: e.Err}, cfg.Test.Network)
}

// linkEscapes lists the symlinks among entries (what changed on the way to
// tree) that would let the test runner read what no freeze covers: a link in
// the frozen surface (its target is what the runner reads), a link out of the
// repository, to a directory (pytest walks into it and loads its conftest.py
// files), or to anything that is not a file committed in tree.
func linkEscapes(ctx context.Context, repo *gitx.Repo, r surface.Rules, entries []gitx.RawEntry, tree string) ([]surface.Change, error) {
	var links []gitx.RawEntry
	var oids []string
	for _, e := range entries {
		if e.NewMode == gitx.ModeSymlink && !gitx.IsNullOID(e.NewOID) {
			links = append(links, e)
			oids = append(oids, e.NewOID)
		}
	}
	if len(links) == 0 {
		return nil, nil
	}
	blobs, err := repo.Blobs(ctx, oids)
	if err != nil {
		return nil, err
	}
	var out []surface.Change
	resolved := map[string]string{} // link path → target path in the tree
	var lookup []string
	for _, l := range links {
		target := string(blobs[l.NewOID])
		to := path.Join(path.Dir(l.Path), target)
		switch {
		case strings.ContainsAny(target, "\n\x00") || path.IsAbs(target) || to == ".." || strings.HasPrefix(to, "../"):
			out = append(out, surface.Change{Path: l.Path, Note: "a symlink out of the repository, to " + target})
		case r.Frozen(l.Path):
			out = append(out, surface.Change{Path: l.Path, Note: "a symlink in the frozen surface, to " + target})
		default:
			resolved[l.Path] = to
			lookup = append(lookup, to)
		}
	}
	found, err := repo.LsTree(ctx, tree, lookup)
	if err != nil {
		return nil, err
	}
	for link, to := range resolved {
		t, ok := found[to]
		switch {
		case !ok:
			out = append(out, surface.Change{Path: link, Note: "a symlink to nothing committed, " + to})
		case t.Type == "tree":
			out = append(out, surface.Change{Path: link, Note: "a symlink to a directory, " + to})
		case t.Mode == gitx.ModeSymlink:
			out = append(out, surface.Change{Path: link, Note: "a symlink to a symlink, " + to})
		case r.Frozen(to):
			// a link to a frozen file reads frozen content
		}
	}
	surface.Sort(out)
	return out, nil
}
