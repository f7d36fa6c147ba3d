package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
)

// Green proves that the red's tests now pass and were not weakened, and commits
// the implementation; after green it commits refactoring that keeps them green.
func (e *Env) Green(issue string) error {
	w, err := e.active(issue)
	if err != nil {
		return err
	}
	if w.Phase != state.PhaseRed && w.Phase != state.PhaseGreen {
		return exitcode.New(exitcode.Refused, "#%s has no red yet: write failing tests and run git tdd red first", w.Issue)
	}
	if changed := tampered(w); len(changed) > 0 {
		e.audit(state.AuditEntry{Command: "tdd green", Issue: w.Issue, Outcome: "tests-changed", Detail: strings.Join(changed, " ")})
		return exitcode.New(exitcode.Refused, "the tests recorded at red were changed since; green must satisfy them as they were").
			WithDetail(changed...).WithHint("to change the tests, run git tdd red again")
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return err
	}
	res, err := e.runTests(cfg, w.Worktree)
	if err != nil {
		return err
	}
	v := RouteGreen(GreenInput{Result: res, RedIDs: w.Red.Failing, Attempts: w.Attempts.Green, MaxRetries: cfg.Test.MaxRetries})
	if v.Kind != KindGreen {
		return e.refuse(w, "tdd green", v, func(w *state.Workflow) { w.Attempts.Green++ })
	}
	wt := e.Repo.At(w.Worktree)
	dirty, err := wt.Dirty(e.Ctx, true)
	if err != nil {
		return err
	}
	if len(dirty) == 0 && w.Phase == state.PhaseGreen {
		fmt.Fprintf(e.Out, "green: %s\nnothing new to commit; next: git tdd merge\n", v.Message)
		return e.update(w.Issue, func(w *state.Workflow) error { w.Attempts.Green = 0; return nil })
	}
	passing := len(res.With(runner.Passed))
	commit, err := e.commitAll(wt, fmt.Sprintf("feat(#%s): green — %d passing\n\nTDD-Phase: green\n", w.Issue, passing), true)
	if err != nil {
		return err
	}
	err = e.update(w.Issue, func(w *state.Workflow) error {
		w.Phase, w.Green, w.Attempts.Green = state.PhaseGreen, state.Commit{Commit: commit}, 0
		return nil
	})
	if err != nil {
		return fmt.Errorf("committed the green as %s but could not record it: %w", short(commit), err)
	}
	e.audit(state.AuditEntry{Command: "tdd green", Issue: w.Issue, Tree: commit, Outcome: "green", Detail: v.Message})
	fmt.Fprintf(e.Out, "green: %s\ncommitted %s feat(#%s): green — %d passing\nnext: refactor and run git tdd green again, or git tdd merge\n", v.Message, short(commit), w.Issue, passing)
	return nil
}

// tampered lists the test files recorded at red that changed or disappeared.
func tampered(w *state.Workflow) []string {
	var out []string
	for f, want := range w.Red.TestFiles {
		got := hashFiles(w.Worktree, []string{f})[f]
		switch {
		case got == "":
			if _, err := os.Stat(filepath.Join(w.Worktree, filepath.FromSlash(f))); err != nil {
				out = append(out, "  deleted: "+f)
			}
		case got != want:
			out = append(out, "  changed: "+f)
		}
	}
	sort.Strings(out)
	return out
}
