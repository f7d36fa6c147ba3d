package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// BackupPrefix is where abort keeps what it removes.
const BackupPrefix = "refs/tdd/backup/"

// Abort removes the worktree and the branch. Nothing is lost: uncommitted work
// and unmerged commits are first saved under refs/tdd/backup/<issue>-<time>.
// Discarding them needs a human on the terminal to say so, or --force.
func (e *Env) Abort(issue string, force bool) error {
	w, _, err := e.Find(issue)
	if err != nil {
		return err
	}
	if !w.Active() {
		return exitcode.New(exitcode.Usage, "issue %s is %s already", w.Issue, w.Phase)
	}
	lose, err := e.wouldLose(w)
	if err != nil {
		return err
	}
	if len(lose) == 0 || force {
		return e.remove(w)
	}
	tty, err := term.OpenTTY(e.Color, e.Getenv)
	if err != nil {
		return exitcode.New(exitcode.HumanRequired, "aborting #%s would discard %s; nothing was changed", w.Issue, strings.Join(lose, " and ")).
			WithHint("run it in a terminal to confirm, or with --force (they are saved under %s%s-<time> first)", BackupPrefix, w.Issue)
	}
	defer tty.Close()
	return e.discard(w, tty)
}

// discard asks on the terminal, then removes the workflow's worktree and branch.
func (e *Env) discard(w *state.Workflow, tty *term.TTY) error {
	lose, err := e.wouldLose(w)
	if err != nil {
		return err
	}
	if len(lose) > 0 {
		fmt.Fprintf(tty.Writer(), "Aborting #%s discards %s; they are saved under %s%s-<time> first.\n", w.Issue, strings.Join(lose, " and "), BackupPrefix, w.Issue)
		answer, err := tty.Choose(e.Ctx, "Type ABORT to discard them or KEEP to keep working:", []term.Choice{{Word: "ABORT"}, {Word: "KEEP"}})
		if errors.Is(err, term.ErrNoAnswer) {
			answer, err = "KEEP", nil
		}
		if err != nil {
			return err
		}
		if answer != "ABORT" {
			return exitcode.New(exitcode.Refused, "kept #%s as it is", w.Issue)
		}
	}
	return e.remove(w)
}

// wouldLose says what removing the workflow would discard.
func (e *Env) wouldLose(w *state.Workflow) ([]string, error) {
	var lose []string
	if tip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch); err == nil {
		base := w.BaseCommit
		if b, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Base); err == nil {
			base = b
		}
		n, err := e.Repo.Count(e.Ctx, base+".."+tip)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			lose = append(lose, term.Count(n, "unmerged commit", "unmerged commits"))
		}
	}
	if _, err := os.Stat(w.Worktree); err == nil {
		dirty, err := e.Repo.At(w.Worktree).Dirty(e.Ctx, true)
		if err != nil {
			return nil, err
		}
		if len(dirty) > 0 {
			lose = append(lose, term.Count(len(dirty), "uncommitted change", "uncommitted changes"))
		}
	}
	return lose, nil
}

// remove saves what would be lost, then removes the worktree and the branch.
func (e *Env) remove(w *state.Workflow) error {
	backup, err := e.backup(w)
	if err != nil {
		return fmt.Errorf("could not save #%s before removing it, so nothing was removed: %w", w.Issue, err)
	}
	if err := e.Repo.RemoveWorktree(e.Ctx, w.Worktree, true); err != nil {
		if _, statErr := os.Stat(w.Worktree); statErr == nil {
			return fmt.Errorf("could not remove the worktree %s: %w", w.Worktree, err)
		}
	}
	if tip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch); err == nil {
		if err := e.Repo.DeleteRef(e.Ctx, "refs/heads/"+w.Branch, tip); err != nil {
			return err
		}
	}
	if err := e.update(w.Issue, func(w *state.Workflow) error {
		w.Phase, w.Backup = state.PhaseAborted, backup
		return nil
	}); err != nil {
		return err
	}
	e.audit(state.AuditEntry{Command: "tdd abort", Issue: w.Issue, Path: w.Worktree, Outcome: "aborted", Detail: backup})
	fmt.Fprintf(e.Out, "aborted #%s: removed %s and the branch %s\n", w.Issue, w.Worktree, w.Branch)
	if backup != "" {
		fmt.Fprintf(e.Out, "saved as %s\nto get it back: git worktree add -b %s <dir> %s\n", backup, w.Branch, backup)
	}
	return nil
}

// backup saves the worktree (untracked files included) and the branch's commits
// under refs/tdd/backup/; "" when there is nothing that is not already merged.
func (e *Env) backup(w *state.Workflow) (string, error) {
	tip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch)
	if err != nil {
		return "", nil // the branch is gone: its commits are not ours to save
	}
	snapshot := tip
	if _, err := os.Stat(w.Worktree); err == nil {
		// not git status: it hides edits to skip-worktree files
		if snapshot, err = e.Repo.At(w.Worktree).Snapshot(e.Ctx, fmt.Sprintf("git tdd abort: uncommitted work of #%s\n", w.Issue)); err != nil {
			return "", err
		}
	}
	if snapshot == w.BaseCommit {
		return "", nil
	}
	ref := BackupPrefix + w.Issue + "-" + time.Now().UTC().Format("20060102T150405Z")
	return ref, e.Repo.UpdateRef(e.Ctx, ref, snapshot, "", "git tdd abort #"+w.Issue)
}
