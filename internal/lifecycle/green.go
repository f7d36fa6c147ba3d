package lifecycle

import (
	"fmt"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
)

// Green proves that the last red's tests now pass, judged test by test from
// the report, with the frozen surface the red commit's before and after the
// run, and commits exactly what was tested; after green it commits refactoring
// that keeps them green.
func (e *Env) Green(issue string) (err error) {
	result := &GateResult{Gate: "green", Issue: issue}
	defer func() { err = e.emit(result, err) }()
	w, wt, head, err := e.checkedOut(issue)
	if err != nil {
		return err
	}
	result.Issue = w.Issue
	defer e.prestart(w.Worktree)()
	p, err := e.prepare(w, wt, head, true)
	if err != nil {
		return e.refused(w, result, err)
	}
	defer p.close(e)
	gitx.Mark("staged")
	red, tree := p.red, p.staged.Tree
	if red == nil {
		return exitcode.New(exitcode.Refused, "#%s has no red yet: write failing tests and run git tdd red first", w.Issue)
	}
	if changes := p.sinceRed; len(changes) > 0 {
		return e.refused(w, result, surfaceError(fmt.Sprintf("the frozen test surface changed since the red (%s): green must satisfy the tests as they were", short(red.ID)), changes).
			WithHint("to change the tests, run git tdd red again"))
	}
	res, err := e.runTests(p.cfg, w.Worktree, nil)
	if err != nil {
		return err
	}
	result.Run = res
	// the verdict, and the commit it makes, beside the check that nothing
	// frozen changed
	surface := make(chan error, 1)
	go func() { surface <- e.unchangedSince(wt, p.rules, p.staged) }()
	v := RouteGreen(GreenInput{Result: res, RedIDs: red.Failing, Attempts: w.Attempts.Green, MaxRetries: p.cfg.Test.MaxRetries})
	unchanged := red.TipTree == tree && w.Phase == state.PhaseGreen
	passing := len(res.With(runner.Passed))
	msg, merr := commitmsg.Build(fmt.Sprintf("feat(#%s): green — %d passing", w.Issue, passing),
		fmt.Sprintf("Proved by git tdd green against the red %s.", short(red.ID)), commitmsg.Trailer{Key: PhaseTrailer, Value: "green"})
	var d *draft
	if v.Kind == KindGreen && !unchanged && merr == nil {
		d = p.draft(e, wt, head, msg)
	}
	if err := <-surface; err != nil {
		return e.refused(w, result, err)
	}
	result.verdict(v)
	if v.Kind != KindGreen {
		return e.refuse(w, "tdd green", v, func(w *state.Workflow) { w.Attempts.Green++ })
	}
	if unchanged {
		if !e.JSON {
			fmt.Fprintf(e.Out, "green: %s\nnothing new to commit; next: git tdd merge\n", v.Message)
		}
		return e.update(w.Issue, func(w *state.Workflow) error { w.Attempts.Green = 0; return nil })
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
		w.Phase, w.Green, w.Attempts.Green = state.PhaseGreen, state.Commit{Commit: commit}, 0
		w.Red = state.RedRecord{Commit: red.ID, Failing: red.Failing}
		return nil
	})
	if err != nil {
		return fmt.Errorf("committed the green as %s but could not record it: %w", short(commit), err)
	}
	e.audit(state.AuditEntry{Command: "tdd green", Issue: w.Issue, Tree: tree, Outcome: "green", Detail: commit + " " + v.Message})
	gitx.Mark("recorded")
	result.Commit = commit
	if e.JSON {
		return nil
	}
	fmt.Fprintf(e.Out, "green: %s\ncommitted %s feat(#%s): green — %d passing\nnext: refactor and run git tdd green again, or git tdd merge\n", v.Message, short(commit), w.Issue, passing)
	return nil
}
