package lifecycle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/jstitle"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"golang.org/x/sync/errgroup"
)

// Red proves that tests of this branch fail for the right reason and commits
// exactly what was tested as the red. The tree is written before the run and
// the frozen surface compared with it after, so nothing that changes during
// the run is recorded; the failing ids go into the commit's trailers.
func (e *Env) Red(issue string) (err error) {
	result := &GateResult{Gate: "red", Issue: issue}
	defer func() { err = e.emit(result, err) }()
	w, wt, head, err := e.checkedOut(issue)
	if err != nil {
		return err
	}
	result.Issue = w.Issue
	defer e.prestart(w.Worktree)()
	if w.Phase == state.PhaseRed {
		fmt.Fprintf(e.Err, "git-tdd: #%s is red already; a new red replaces it (use it to change the tests)\n", w.Issue)
	}
	p, err := e.prepare(w, wt, head, false)
	if err != nil {
		return e.refused(w, result, err)
	}
	defer p.close(e)
	gitx.Mark("staged")
	changed := changedTests(p.branch, p.cfg.Test.TestPaths)
	res, err := e.runScoped(p, wt, w.Worktree, changed)
	if err != nil {
		return err
	}
	result.Run = res
	// the verdict, and the commit it makes, beside the check that nothing
	// frozen changed
	var v Verdict
	var msg string
	var merr error
	var d *draft
	var g errgroup.Group
	g.Go(func() error { return e.unchangedSince(wt, p.rules, p.staged) })
	g.Go(func() error {
		attachFiles(w.Worktree, res, changed)
		ours, err := ownership(e, wt, p.branch, res)
		if err != nil {
			return err
		}
		v = e.routeRed(w, p, res, changed, ours)
		if v.Kind == KindRed {
			if msg, merr = redMessage(w.Issue, v.Failing, len(changed)); merr == nil {
				d = p.draft(e, wt, head, msg)
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return e.refused(w, result, err)
	}
	result.verdict(v)
	if v.Kind != KindRed {
		return e.refuse(w, "tdd red", v, func(w *state.Workflow) { w.Attempts.Red++ })
	}
	if merr != nil {
		return exitcode.With(exitcode.Refused, merr).WithHint("nothing was committed")
	}
	commit, err := e.advance(wt, head, p, msg, d)
	if err != nil {
		return err
	}
	gitx.Mark("committed")
	err = e.recordCommit(w.Issue, func(w *state.Workflow) error {
		w.Phase = state.PhaseRed
		w.Red = state.RedRecord{Commit: commit, Failing: v.Failing}
		w.Green = state.Commit{}
		w.Attempts = state.Attempts{}
		return nil
	})
	if err != nil {
		return fmt.Errorf("committed the red as %s but could not record it: %w", short(commit), err)
	}
	e.audit(state.AuditEntry{Command: "tdd red", Issue: w.Issue, Tree: p.staged.Tree, Outcome: "red", Detail: commit + " " + strings.Join(v.Failing, " ")})
	gitx.Mark("recorded")
	result.Commit = commit
	if e.JSON {
		return nil
	}
	fmt.Fprintf(e.Out, "red: %s\n", v.Message)
	printList(e.Out, "FAILED", v.Failing)
	fmt.Fprintf(e.Out, "committed %s test(#%s): red — %d failing\nnext: make them pass, then run: git tdd green\n", short(commit), w.Issue, len(v.Failing))
	return nil
}

// routeRed judges red's run (DESIGN §5): ours says which failing tests are
// the branch's.
func (e *Env) routeRed(w *state.Workflow, p *prepared, res *runner.Result, changed map[string]bool, ours func(runner.Test) bool) Verdict {
	mods := ModulesOf(w.Worktree, p.cfg.Test.Env["PYTHONPATH"])
	return RouteRed(RedInput{Result: res, ChangedTests: changed, MaxRetries: p.cfg.Test.MaxRetries, Attempts: w.Attempts.Red,
		Ours:    ours,
		Natural: func(t runner.Test) bool { return changed[t.File] && mods.NaturalFile(t) },
		Hollow: func(t runner.Test) bool {
			src, err := os.ReadFile(filepath.Join(w.Worktree, filepath.FromSlash(t.File)))
			return err == nil && Hollow(t.File, t.ID, src)
		}})
}

// runScoped runs what red needs (DESIGN §5, [test] red_scope): the branch's
// changed test files, or the whole suite when they cannot be selected or a
// scoped run collects nothing; it says which.
func (e *Env) runScoped(p *prepared, wt *gitx.Repo, dir string, changed map[string]bool) (*runner.Result, error) {
	var blobs map[string][]byte
	if p.cfg.Test.Runner == "go" && p.cfg.Test.RedScope != "all" {
		var oids []string
		for _, r := range p.branch {
			if changed[r.Path] && strings.HasSuffix(r.Path, "_test.go") {
				oids = append(oids, r.OldOID, r.NewOID)
			}
		}
		var err error
		if blobs, err = wt.Blobs(e.Ctx, oids); err != nil {
			return nil, err
		}
	}
	s := RedScope(p.cfg, dir, p.branch, changed, blobs)
	if s.Scoped() {
		harness, err := harnessChanges(e.Ctx, wt, p.cfg, p.branch)
		if err != nil {
			return nil, err
		}
		if len(harness) > 0 {
			s = Scope{Why: "this branch changes how the tests run (" + strings.Join(harness, " ") + "): red runs the whole suite, as green does"}
		}
	}
	if !s.Scoped() {
		if p.cfg.Test.RedScope != "all" {
			fmt.Fprintf(e.Err, "git-tdd: %s\n", s.Why)
		}
		return e.runTests(p.cfg, dir, nil)
	}
	res, err := e.runSpec(p.cfg, dir, s.Select, s.Packages, "("+s.Why+")")
	if err != nil || !collectedNothing(res) {
		return res, err
	}
	fmt.Fprintf(e.Err, "git-tdd: the test files this branch changed hold no tests (%s collected nothing); running the whole suite\n", p.cfg.Test.Runner)
	return e.runTests(p.cfg, dir, nil)
}

// checkedOut is the active workflow of issue with its worktree, which must
// still have the workflow's branch checked out, and that branch's tip.
func (e *Env) checkedOut(issue string) (*state.Workflow, *gitx.Repo, string, error) {
	w, err := e.active(issue)
	if err != nil {
		return nil, nil, "", err
	}
	wt := e.Repo.At(w.Worktree)
	head, branch, err := wt.HeadBranch(e.Ctx)
	if err != nil {
		return nil, nil, "", err
	}
	if branch != "refs/heads/"+w.Branch {
		on := "a detached HEAD"
		if branch != "" {
			on = strings.TrimPrefix(branch, "refs/heads/")
		}
		return nil, nil, "", exitcode.New(exitcode.Usage, "the worktree of #%s is on %s, not on its branch %s", w.Issue, on, w.Branch).
			WithHint("git -C %s switch %s", w.Worktree, w.Branch)
	}
	return w, wt, head, nil
}

// refuse reports a verdict that is not a pass, counting the attempt if it does.
func (e *Env) refuse(w *state.Workflow, command string, v Verdict, count func(*state.Workflow)) error {
	if v.Attempt {
		if err := e.update(w.Issue, func(w *state.Workflow) error { count(w); return nil }); err != nil {
			return err
		}
	}
	e.audit(state.AuditEntry{Command: command, Issue: w.Issue, Outcome: v.Kind, Detail: v.Message})
	var detail []string
	for _, id := range v.List {
		detail = append(detail, "  "+id)
	}
	err := exitcode.New(v.Code, "%s", v.Message).WithDetail(detail...)
	if v.Hint != "" {
		err.WithHint("%s", v.Hint)
	}
	return err
}

// refused reports a refusal that is not a test verdict (the frozen surface);
// other errors pass through.
func (e *Env) refused(w *state.Workflow, result *GateResult, err error) error {
	if exitcode.Of(err) != exitcode.Refused {
		return err
	}
	detail, _ := exitcode.Lines(err)
	result.Verdict = "surface-changed"
	e.audit(state.AuditEntry{Command: "tdd " + result.Gate, Issue: w.Issue, Outcome: result.Verdict, Detail: err.Error() + ": " + strings.Join(detail, ";")})
	return err
}

// changedTests are the test files among what the branch changed (present in
// the tested tree).
func changedTests(raw []gitx.RawEntry, patterns []string) map[string]bool {
	paths := make([]string, 0, len(raw))
	for _, r := range raw {
		if !gitx.IsNullOID(r.NewOID) {
			paths = append(paths, r.Path)
		}
	}
	out := map[string]bool{}
	for _, f := range testFiles(paths, patterns) {
		out[f] = true
	}
	return out
}

// ownership says whether a failing test is this branch's: new on it, or its
// definition changed since the fork point (DESIGN §5). branch holds the blob
// ids of every file the branch changed; a file it did not change has no test
// of its own.
func ownership(e *Env, wt *gitx.Repo, branch []gitx.RawEntry, res *runner.Result) (func(runner.Test) bool, error) {
	byPath := map[string]gitx.RawEntry{}
	for _, r := range branch {
		byPath[r.Path] = r
	}
	var oids []string
	for _, t := range res.With(runner.Failed) {
		if r, ok := byPath[t.File]; ok {
			oids = append(oids, r.OldOID, r.NewOID)
		}
	}
	blobs, err := wt.Blobs(e.Ctx, oids)
	if err != nil {
		return nil, err
	}
	return func(t runner.Test) bool {
		r, ok := byPath[t.File]
		return ok && TestChanged(t.File, t.ID, blobs[r.OldOID], blobs[r.NewOID])
	}, nil
}

// attachFiles finds the changed test file of each test whose report names
// none: for go (tests reported by package), the file that declares the
// function; for runner = "junit", the one file among them that holds the
// test's name, or for a JavaScript file its whole title path (none when several do: a test counts for the branch only when
// its file is certain).
func attachFiles(dir string, res *runner.Result, changed map[string]bool) {
	if res.Runner != "go" && res.Runner != "junit" {
		return
	}
	sources := map[string][]byte{}
	for f := range changed {
		if res.Runner == "go" && !strings.HasSuffix(f, "_test.go") {
			continue
		}
		if src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			sources[f] = src
		}
	}
	for i, t := range res.Tests {
		if t.File != "" {
			continue
		}
		name := runner.ShortName(t.ID)
		if name == "" {
			continue
		}
		var decl *regexp.Regexp
		if res.Runner == "go" {
			decl = regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(`)
		}
		var found []string
		for f, src := range sources {
			switch {
			case decl != nil && decl.Match(src),
				decl == nil && jstitle.IsSource(f) && jstitle.Has(src, t.ID),
				decl == nil && !jstitle.IsSource(f) && bytes.Contains(src, []byte(name)):
				found = append(found, f)
			}
		}
		if len(found) == 1 {
			res.Tests[i].File = found[0]
		}
	}
}

// redMessage is the red commit's message: every failing id is a trailer, so
// that the proof at merge and in CI reads them from git. An id that cannot be
// one refuses it (commitmsg.Build).
func redMessage(issue string, failing []string, changedFiles int) (string, error) {
	body := "Proved by git tdd red: the tests below fail, by assertion or because what they\nimport does not exist yet."
	if len(failing) == 0 {
		body = fmt.Sprintf("The tests fail with %d changed test files.", changedFiles)
	}
	trailers := []commitmsg.Trailer{{Key: PhaseTrailer, Value: "red"}}
	for _, id := range failing {
		trailers = append(trailers, commitmsg.Trailer{Key: FailingTrailer, Value: id})
	}
	return commitmsg.Build(fmt.Sprintf("test(#%s): red — %d failing", issue, len(failing)), body, trailers...)
}
