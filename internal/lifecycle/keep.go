package lifecycle

import (
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// offBranch refuses, before anyone is asked, a merge whose worktree's HEAD
// holds commits its branch lacks (git checkout --detach and an hour of work,
// a stopped rebase, another branch): the human would approve the branch
// without them, and removing the worktree would take them along.
func (e *Env) offBranch(w *state.Workflow, branchTip string) error {
	head, branch, err := e.Repo.At(w.Worktree).HeadBranch(e.Ctx)
	if err != nil || branch == "refs/heads/"+w.Branch {
		return nil // a HEAD that names no commit holds none; the gates say the rest
	}
	n, err := e.Repo.CountBeyond(e.Ctx, []string{head}, branchTip)
	if err != nil || n == 0 {
		return err
	}
	where := "HEAD is detached at " + short(head)
	if branch != "" {
		where = "HEAD is on " + term.Line(strings.TrimPrefix(branch, "refs/heads/"), 80)
	}
	return exitcode.New(exitcode.Refused, "the worktree of #%s holds %s that %s not on %s (%s): the merge would leave %s out; nothing was merged",
		w.Issue, term.Count(n, "commit", "commits"), isAre(n), w.Branch, where, itThem(n)).
		WithHint("to merge %s, bring %s onto the branch: in %s, git checkout %s && git merge --ff-only %s, then git tdd green; to leave %s out, keep %s on a branch of its own (git branch <name> %s) and check %s out",
			itThem(n), itThem(n), term.ShellQuote(w.Worktree), w.Branch, short(head), itThem(n), itThem(n), short(head), w.Branch)
}

// saveBeyondMerge saves what the worktree holds that the merge does not reach
// (the worktree's HEAD, what its log names, files that appeared while the
// human read the review) as abort saves it, before the worktree goes; "" when
// there is nothing to save.
func (e *Env) saveBeyondMerge(w *state.Workflow) (string, error) {
	ref, err := e.backup(w, "git tdd merge")
	if err != nil || ref == "" {
		return ref, err
	}
	e.audit(state.AuditEntry{Command: "tdd merge", Issue: w.Issue, Path: w.Worktree, Outcome: "saved", Detail: ref})
	err = e.update(w.Issue, func(w *state.Workflow) error {
		w.Backup = ref
		return nil
	})
	return ref, err
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
