package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// MergeTrailer is the trailer a merge commit carries for its issue.
const MergeTrailer = commitmsg.IssueKey

// Merge re-runs the tests and the lint, shows the diff-gate review of the whole
// branch against its base, and after APPROVE on the terminal merges it with
// --no-ff, removes the worktree and deletes the branch. It never touches
// uncommitted work in any checkout: when anything is in the way, nothing changes.
func (e *Env) Merge(issue string, auto bool) (err error) {
	result := &GateResult{Gate: "merge", Issue: issue}
	defer func() { err = e.emit(result, err) }()
	w, err := e.active(issue)
	if err != nil {
		return err
	}
	result.Issue = w.Issue
	if w.Phase != state.PhaseGreen {
		return exitcode.New(exitcode.Refused, "#%s is %s: merging needs a green (git tdd green)", w.Issue, w.Phase)
	}
	if auto || e.Getenv("GIT_TDD_AUTO") == "1" {
		return needHuman(w, "--auto cannot approve a merge")
	}
	tty, err := term.OpenTTY(e.Color, e.Getenv, e.Repo.CommonDir)
	if errors.Is(err, term.ErrPagedByGit) || errors.Is(err, heldtty.ErrHeld) {
		return needHuman(w, err.Error())
	}
	if err != nil {
		return needHuman(w, "there is no terminal to ask a human for approval")
	}
	defer tty.Close()
	plan, err := e.prepareMerge(w)
	if err != nil {
		return err
	}
	result.Proved, result.Run = plan.proved, plan.proved.run
	rep, err := review.Analyze(e.Ctx, e.Repo, plan.target, review.Rules(plan.cfg))
	if err != nil {
		return err
	}
	screen := review.NewScreen(e.Ctx, e.Repo, tty, e.NoPager, e.Getenv, "git-tdd")
	err = screen.Present(rep, func(pr *review.Printer) error {
		fmt.Fprintf(pr.W, "proved: %s\n\nMerging #%s (%s) into %s:\n", plan.proved, w.Issue, w.Branch, w.Base)
		return review.ShowAll(e.Ctx, e.Repo, plan.target, rep, pr, rules(plan.cfg).Frozen)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(tty.Writer(), "proved: %s\n\n", plan.proved)
	question := fmt.Sprintf("Type APPROVE to merge #%s into %s, REJECT to keep working, or ABORT to discard:", w.Issue, w.Base)
	if e.AskReason != "" {
		question = fmt.Sprintf("Type APPROVE to merge #%s into %s, REJECT to send the agent back with your reason, or ABORT to discard:", w.Issue, w.Base)
	}
	answer, err := tty.Choose(e.Ctx, question, []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}, {Word: "ABORT"}})
	typed := err == nil && answer == "REJECT" // not a REJECT for want of an answer
	if errors.Is(err, term.ErrNoAnswer) {
		answer, err = "REJECT", nil
	}
	if err == nil && answer == "APPROVE" { // what the review did not show is approved on its own
		if ok, uerr := review.ConfirmUnseen(e.Ctx, tty, rep); uerr != nil || !ok {
			answer, err = "REJECT", uerr
		}
	}
	if err != nil {
		return err
	}
	switch answer {
	case "ABORT":
		return e.discard(w, tty)
	case "REJECT":
		result.Verdict = "rejected"
		review.Log(e.Ctx, e.Store, plan.target, rep, "tdd merge", "rejected", "#"+w.Issue)
		refused := exitcode.New(exitcode.Refused, "not merged: #%s stays %s in %s", w.Issue, w.Phase, w.Worktree)
		if e.AskReason == "" || !typed {
			return refused
		}
		reason, err := askReason(e.Ctx, tty, e.AskReason)
		if e.Ctx.Err() != nil {
			return e.Ctx.Err()
		}
		if err != nil {
			return refused.WithHint("no reason was given (%v), so the agent was not sent back; git tdd run %s asks again", err, w.Issue)
		}
		return &Rejected{Reason: reason, err: refused}
	}
	result.Verdict = "merged"
	result.Commit, err = e.land(w, plan, rep)
	return err
}

// Rejected is a REJECT at merge's question with the human's reason, which
// git tdd run sends to its agent (Env.AskReason).
type Rejected struct {
	Reason string // the human's words, at most state.MaxReason bytes
	err    error
}

func (r *Rejected) Error() string { return r.err.Error() }
func (r *Rejected) Unwrap() error { return r.err }

// askReason reads the reason for a REJECT on the terminal (never stdin): an
// empty answer asks again, three times, and a long one is cut to
// state.MaxReason bytes.
func askReason(ctx context.Context, tty *term.TTY, question string) (string, error) {
	for range 3 {
		reason, err := tty.Line(ctx, question)
		if err != nil {
			return "", err
		}
		if reason == "" {
			fmt.Fprintln(tty.Writer(), "Please say what the agent should change (or interrupt to stop).")
			continue
		}
		if bounded := state.BoundReason(reason); bounded != reason {
			fmt.Fprintf(tty.Writer(), "Only the first %d bytes are kept.\n", state.MaxReason)
			reason = bounded
		}
		return reason, nil
	}
	return "", term.ErrNoAnswer
}

func needHuman(w *state.Workflow, why string) error {
	return exitcode.New(exitcode.HumanRequired, "%s; nothing was changed", why).
		WithHint("a human must run, in a terminal:  git tdd merge %s", w.Issue)
}

// mergePlan is a merge computed and proved, but not landed.
type mergePlan struct {
	cfg          *config.Config
	target       review.Target // the merge result against the base's tip
	baseTip      string
	branchTip    string
	baseCheckout string // the worktree where the base is checked out, if any
	proved       *Proved
	subject      string // the merge commit's, checked
}

// prepareMerge checks everything that could stop the merge, without changing
// anything, and proves the cycle again from the branch's history: the
// worktree is committed, the base exists and its checkout is clean, the tip's
// frozen surface is the last red's, the merge has no conflicts, the red's
// tests fail at the red commit and the merged tree passes.
func (e *Env) prepareMerge(w *state.Workflow) (*mergePlan, error) {
	if err := e.signable(); err != nil {
		return nil, err
	}
	wt := e.Repo.At(w.Worktree)
	dirty, err := wt.Dirty(e.Ctx, true)
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		return nil, exitcode.New(exitcode.Refused, "the worktree of #%s has changes that are not committed", w.Issue).
			WithDetail(indent(dirty)...).WithHint("commit them with git tdd green, or remove them; nothing was merged")
	}
	if hidden, err := e.uncommitted(w); err != nil {
		return nil, err
	} else if hidden {
		return nil, exitcode.New(exitcode.Refused, "the worktree of #%s has changes git status does not show (skip-worktree or assume-unchanged files); removing it would lose them", w.Issue).
			WithHint("git -C %s ls-files -v shows the files (tags S and lower case); clear the bits with git update-index, then commit or drop the changes; nothing was merged", term.ShellQuote(w.Worktree))
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
	if err := e.offBranch(w, branchTip); err != nil {
		return nil, err
	}
	fork, err := e.Repo.MergeBase(e.Ctx, baseTip, branchTip)
	if err != nil {
		return nil, exitcode.With(exitcode.Refused, err)
	}
	cfg, err := e.Config(fork)
	if err != nil {
		return nil, err
	}
	red, err := LastRed(e.Ctx, e.Repo, fork, branchTip)
	if err != nil {
		return nil, err
	}
	if red == nil {
		return nil, exitcode.New(exitcode.Refused, "%s has no red commit (%s: red) since it left %s; nothing was merged", w.Branch, PhaseTrailer, w.Base).
			WithHint("prove the tests with git tdd red and git tdd green")
	}
	if err := e.frozenAtTip(cfg, red, fork); err != nil {
		return nil, err
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
	subject, err := mergeSubject(w)
	if err != nil {
		return nil, exitcode.With(exitcode.Refused, err).
			WithHint("the subject of #%s is in %s (git tdd status shows it): make it one line of printable text; nothing was merged", w.Issue, e.Store.Path())
	}
	proved, err := e.reprove(cfg, red, fork, baseTip, tree, labelOf(w.Issue))
	if err != nil {
		return nil, addHint(err, "nothing was merged")
	}
	return &mergePlan{cfg: cfg, target: review.Target{Base: baseTip, BaseCommit: baseTip, Tree: tree},
		baseTip: baseTip, branchTip: branchTip, baseCheckout: checkout, proved: proved, subject: subject}, nil
}

// signable refuses, before anyone reviews the merge, a signature that would
// be refused after: the merge commit is signed (commit.gpgSign) by a program
// the repository's own configuration names, which would read the passphrase.
func (e *Env) signable() error {
	s, err := e.Repo.Signing(e.Ctx)
	if err != nil || !s.Sign || s.Foreign == nil {
		return err
	}
	return exitcode.With(exitcode.Usage, s.Foreign).WithHint("nothing was merged")
}

// mergeSubject is the merge commit's subject, "Merge #N: <subject>" (the
// branch's name when start was given none), checked (commitmsg.CheckValue):
// at start, and again before anyone is asked to approve the merge, since
// state.toml, where the subject waits, is anyone's to edit.
func mergeSubject(w *state.Workflow) (string, error) {
	subject := w.Subject
	if subject == "" {
		subject = w.Branch
	}
	line := fmt.Sprintf("Merge #%s: %s", w.Issue, subject)
	if err := commitmsg.CheckValue(line); err != nil {
		return "", fmt.Errorf("the merge commit's subject cannot be written: %w", err)
	}
	return line, nil
}

// addHint says, after a refusal's own words, what it means for the command.
func addHint(err error, hint string) error {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Hint == "" {
		e.Hint = hint
	}
	return err
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
func (e *Env) land(w *state.Workflow, plan *mergePlan, rep *analysis.Report) (string, error) {
	a, err := review.Record(e.Ctx, e.Store, plan.target, rep, "merge #"+w.Issue, "tdd merge")
	if err != nil {
		return "", err
	}
	msg, err := commitmsg.Build(plan.subject, "", commitmsg.Trailer{Key: MergeTrailer, Value: w.Issue}, commitmsg.ApprovalTrailer(a.Time, a.Tree))
	if err != nil {
		return "", exitcode.With(exitcode.Refused, err).WithHint("nothing was merged")
	}
	// signed like the user's own commits: git diffgate verify may require it
	commit, err := e.Repo.CommitTreeSigned(e.Ctx, plan.target.Tree, []string{plan.baseTip, plan.branchTip}, msg, e.Repo.SignsCommits(e.Ctx))
	if err != nil {
		return "", err
	}
	if plan.baseCheckout != "" {
		err = e.Repo.At(plan.baseCheckout).MergeFastForward(e.Ctx, commit)
	} else {
		err = e.Repo.UpdateRef(e.Ctx, "refs/heads/"+w.Base, commit, plan.baseTip, "git tdd merge #"+w.Issue)
	}
	if err != nil {
		return "", exitcode.With(exitcode.Refused, fmt.Errorf("could not move %s to the merge: %w", w.Base, err)).WithHint("nothing was merged; the merge commit %s is unreferenced", short(commit))
	}
	e.Store.Update(e.Ctx, func(st *state.State) error {
		st.Consume(commit, plan.target.Tree, []string{plan.baseTip})
		return nil
	})
	ignored := e.ignoredIn(w)
	repo, moved := e.survivor(w)
	removed := "removed " + w.Worktree
	saved, err := e.saveBeyondMerge(w)
	if err != nil {
		term.Warn(e.Err, "git-tdd", "could not save what the worktree holds beyond the merge, so it is kept: %v", err)
		removed, moved, ignored = "kept "+w.Worktree, "", nil
	} else if err := repo.RemoveWorktree(e.Ctx, w.Worktree, false); err != nil {
		term.Warn(e.Err, "git-tdd", "could not remove the worktree %s: %v", w.Worktree, err)
		removed, moved, ignored = "kept "+w.Worktree, "", nil
	}
	deleted := "deleted the branch " + w.Branch
	if err := repo.DeleteRef(e.Ctx, "refs/heads/"+w.Branch, plan.branchTip); err != nil {
		term.Warn(e.Err, "git-tdd", "could not delete the branch %s: %v", w.Branch, err)
		deleted = "kept the branch " + w.Branch
	}
	err = e.update(w.Issue, func(w *state.Workflow) error {
		w.Phase, w.Merged = state.PhaseMerged, commit
		return nil
	})
	if err != nil {
		return commit, err
	}
	e.audit(state.AuditEntry{Command: "tdd merge", Issue: w.Issue, Tree: plan.target.Tree, Parent: plan.baseTip, ApprovedBy: "tty", Outcome: "merged", Detail: commit})
	if !e.JSON {
		fmt.Fprintf(e.Out, "merged #%s into %s as %s; %s and %s\n", w.Issue, w.Base, short(commit), removed, deleted)
		if len(ignored) > 0 {
			fmt.Fprintf(e.Out, "deleted %s git ignores, with the worktree: %s\n", term.Count(len(ignored), "entry", "entries"), listed(ignored))
		}
		if saved != "" {
			fmt.Fprintf(e.Out, "saved what the worktree held beyond the merge as %s\nsee it with: git log --graph %s --not %s\n", saved, saved, w.Base)
		}
	} else if saved != "" {
		fmt.Fprintf(e.Err, "git-tdd: saved what the worktree held beyond the merge as %s\n", saved)
	}
	e.gone(moved)
	return commit, nil
}

// lint runs [lint] command in the worktree, when one is set.
func (e *Env) lint(cfg *config.Config, dir string) error {
	if len(cfg.Lint.Command) == 0 {
		return nil
	}
	fmt.Fprintf(e.Err, "git-tdd: lint: %s\n", strings.Join(cfg.Lint.Command, " "))
	res, err := e.run(cfg, runner.Spec{Command: cfg.Lint.Command, Runner: "generic", Timeout: cfg.Test.Timeout.Duration, Dir: dir, Out: e.Err}, cfg.Test.Network)
	if err != nil {
		return err
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
