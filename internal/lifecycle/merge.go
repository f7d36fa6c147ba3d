package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// MergeTrailer is the trailer a merge commit carries for its issue.
const MergeTrailer = "TDD-Issue"

// Merge re-runs the tests and the lint, shows the diff-gate review of the whole
// branch against its base, and after APPROVE on the terminal merges it with
// --no-ff, removes the worktree and deletes the branch. It never touches
// uncommitted work in any checkout: when anything is in the way, nothing changes.
func (e *Env) Merge(issue string, auto bool) error {
	w, err := e.active(issue)
	if err != nil {
		return err
	}
	if w.Phase != state.PhaseGreen {
		return exitcode.New(exitcode.Refused, "#%s is %s: merging needs a green (git tdd green)", w.Issue, w.Phase)
	}
	if auto || e.Getenv("GIT_TDD_AUTO") == "1" {
		return needHuman(w, "--auto cannot approve a merge")
	}
	tty, err := term.OpenTTY(e.Color, e.Getenv)
	if err != nil {
		return needHuman(w, "there is no terminal to ask a human for approval")
	}
	defer tty.Close()
	plan, err := e.prepareMerge(w)
	if err != nil {
		return err
	}
	rep, err := review.Analyze(e.Ctx, e.Repo, plan.target, review.Rules(plan.cfg))
	if err != nil {
		return err
	}
	pr := &review.Printer{W: tty.Writer(), P: tty.Palette, Width: tty.Width()}
	fmt.Fprintf(tty.Writer(), "\nMerging #%s (%s) into %s:\n", w.Issue, w.Branch, w.Base)
	if err := review.Show(e.Ctx, e.Repo, plan.target, rep, pr); err != nil {
		return err
	}
	fmt.Fprintln(tty.Writer())
	question := fmt.Sprintf("Type APPROVE to merge #%s into %s, REJECT to keep working, or ABORT to discard:", w.Issue, w.Base)
	answer, err := tty.Choose(e.Ctx, question, []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}, {Word: "ABORT"}})
	if errors.Is(err, term.ErrNoAnswer) {
		answer, err = "REJECT", nil
	}
	if err != nil {
		return err
	}
	switch answer {
	case "ABORT":
		return e.discard(w, tty)
	case "REJECT":
		review.Log(e.Ctx, e.Store, plan.target, rep, "tdd merge", "rejected", "#"+w.Issue)
		return exitcode.New(exitcode.Refused, "not merged: #%s stays %s in %s", w.Issue, w.Phase, w.Worktree)
	}
	return e.land(w, plan, rep)
}

func needHuman(w *state.Workflow, why string) error {
	return exitcode.New(exitcode.HumanRequired, "%s; nothing was changed", why).
		WithHint("a human must run, in a terminal:  git tdd merge %s", w.Issue)
}

// mergePlan is a merge computed but not landed.
type mergePlan struct {
	cfg          *config.Config
	target       review.Target // the merge result against the base's tip
	baseTip      string
	branchTip    string
	baseCheckout string // the worktree where the base is checked out, if any
}

// prepareMerge checks everything that could stop the merge, without changing
// anything: the worktree is committed, the tests pass, the lint passes, the
// base exists, its checkout is clean, and the merge has no conflicts.
func (e *Env) prepareMerge(w *state.Workflow) (*mergePlan, error) {
	wt := e.Repo.At(w.Worktree)
	dirty, err := wt.Dirty(e.Ctx, true)
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		return nil, exitcode.New(exitcode.Refused, "the worktree of #%s has changes that are not committed", w.Issue).
			WithDetail(indent(dirty)...).WithHint("commit them with git tdd green, or remove them; nothing was merged")
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return nil, err
	}
	res, err := e.runTests(cfg, w.Worktree)
	if err != nil {
		return nil, err
	}
	if v := CheckGreen(res, w.Red.Failing); v.Kind != KindGreen {
		return nil, exitcode.New(exitcode.Refused, "the tests do not pass any more: %s; nothing was merged", v.Message).
			WithDetail(indent(v.List)...)
	}
	if err := e.lint(cfg, w.Worktree); err != nil {
		return nil, err
	}
	baseTip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Base)
	if err != nil {
		return nil, exitcode.New(exitcode.Refused, "the base branch %s is gone; nothing was merged", w.Base).
			WithHint("recreate it, or abort #%s (its commits are kept under refs/tdd/backup/)", w.Issue)
	}
	branchTip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch)
	if err != nil {
		return nil, exitcode.New(exitcode.Refused, "the branch %s is gone; nothing was merged", w.Branch)
	}
	checkout, err := e.baseCheckout(w.Base)
	if err != nil {
		return nil, err
	}
	tree, conflicts, err := e.Repo.MergeTree(e.Ctx, baseTip, branchTip)
	if err != nil {
		return nil, err
	}
	if len(conflicts) > 0 {
		return nil, exitcode.New(exitcode.Refused, "%s moved on since #%s started and the merge conflicts; nothing was merged", w.Base, w.Issue).
			WithDetail(indent(conflicts)...).
			WithHint("in the worktree, merge %s into %s and resolve, then git tdd green", w.Base, w.Branch)
	}
	return &mergePlan{cfg: cfg, target: review.Target{Base: baseTip, BaseCommit: baseTip, Tree: tree},
		baseTip: baseTip, branchTip: branchTip, baseCheckout: checkout}, nil
}

// baseCheckout finds the worktree the base is checked out in and refuses a
// dirty one: the merge must not touch uncommitted work.
func (e *Env) baseCheckout(base string) (string, error) {
	wts, err := e.Repo.Worktrees(e.Ctx)
	if err != nil {
		return "", err
	}
	for _, wt := range wts {
		if wt.Branch != "refs/heads/"+base || wt.Bare {
			continue
		}
		dirty, err := e.Repo.At(wt.Path).Dirty(e.Ctx, false)
		if err != nil {
			return "", err
		}
		if len(dirty) > 0 {
			return "", exitcode.New(exitcode.Refused, "%s is checked out in %s with changes that are not committed; nothing was merged", base, wt.Path).
				WithDetail(indent(dirty)...).WithHint("commit or stash them there, then git tdd merge again")
		}
		return wt.Path, nil
	}
	return "", nil
}

// land records the approval, writes the merge commit and moves the base to it,
// then removes the worktree and the branch.
func (e *Env) land(w *state.Workflow, plan *mergePlan, rep *analysis.Report) error {
	a, err := review.Record(e.Ctx, e.Store, plan.target, rep, "merge #"+w.Issue, "tdd merge")
	if err != nil {
		return err
	}
	subject := w.Subject
	if subject == "" {
		subject = w.Branch
	}
	msg := fmt.Sprintf("Merge #%s: %s\n\n%s: %s\n%s\n", w.Issue, subject, MergeTrailer, w.Issue, approvalTrailer(a))
	commit, err := e.Repo.CommitTree(e.Ctx, plan.target.Tree, []string{plan.baseTip, plan.branchTip}, msg)
	if err != nil {
		return err
	}
	if plan.baseCheckout != "" {
		err = e.Repo.At(plan.baseCheckout).MergeFastForward(e.Ctx, commit)
	} else {
		err = e.Repo.UpdateRef(e.Ctx, "refs/heads/"+w.Base, commit, plan.baseTip, "git tdd merge #"+w.Issue)
	}
	if err != nil {
		return exitcode.With(exitcode.Refused, fmt.Errorf("could not move %s to the merge: %w", w.Base, err)).WithHint("nothing was merged; the merge commit %s is unreferenced", short(commit))
	}
	e.Store.Update(e.Ctx, func(st *state.State) error {
		st.Consume(commit, plan.target.Tree, []string{plan.baseTip})
		return nil
	})
	if err := e.Repo.RemoveWorktree(e.Ctx, w.Worktree, false); err != nil {
		term.Warn(e.Err, "git-tdd", "could not remove the worktree %s: %v", w.Worktree, err)
	}
	if err := e.Repo.DeleteRef(e.Ctx, "refs/heads/"+w.Branch, plan.branchTip); err != nil {
		term.Warn(e.Err, "git-tdd", "could not delete the branch %s: %v", w.Branch, err)
	}
	err = e.update(w.Issue, func(w *state.Workflow) error {
		w.Phase, w.Merged = state.PhaseMerged, commit
		return nil
	})
	if err != nil {
		return err
	}
	e.audit(state.AuditEntry{Command: "tdd merge", Issue: w.Issue, Tree: plan.target.Tree, Parent: plan.baseTip, ApprovedBy: "tty", Outcome: "merged", Detail: commit})
	fmt.Fprintf(e.Out, "merged #%s into %s as %s; removed %s and the branch %s\n", w.Issue, w.Base, short(commit), w.Worktree, w.Branch)
	return nil
}

func approvalTrailer(a state.Approval) string {
	return fmt.Sprintf("Diffgate-Approved: %s tree=%s", a.Time.UTC().Format("2006-01-02T15:04:05Z07:00"), a.Tree)
}

// lint runs [lint] command in the worktree, when one is set.
func (e *Env) lint(cfg *config.Config, dir string) error {
	if len(cfg.Lint.Command) == 0 {
		return nil
	}
	fmt.Fprintf(e.Err, "git-tdd: lint: %s\n", strings.Join(cfg.Lint.Command, " "))
	res, err := runner.Run(e.Ctx, runner.Spec{Command: cfg.Lint.Command, Runner: "generic", Timeout: cfg.Test.Timeout.Duration, Dir: dir, Out: e.Err})
	if err != nil {
		return exitcode.With(exitcode.Escalate, err)
	}
	if res.TimedOut {
		return exitcode.New(exitcode.Escalate, "the lint timed out after %s", res.Elapsed.Round(1e8))
	}
	if res.RawExit != 0 {
		return exitcode.New(exitcode.Refused, "the lint fails (exit %d)", res.RawExit)
	}
	return nil
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}
