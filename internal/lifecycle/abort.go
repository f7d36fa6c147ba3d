package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// BackupPrefix is where abort keeps what it removes.
const BackupPrefix = "refs/tdd/backup/"

// Abort removes the worktree and the branch. Nothing is lost: uncommitted and
// untracked work, and every commit of the worktree that the base does not
// reach (the branch, a detached HEAD, the worktree's reflog), are first saved
// under refs/tdd/backup/<issue>-<time>, even when the branch ref is gone.
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
		if ignored := e.ignoredIn(w); len(ignored) > 0 {
			fmt.Fprintf(tty.Writer(), "These files git ignores are deleted with the worktree, and not saved: %s\n", listed(ignored))
		}
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
	tips, base, err := e.tips(w)
	if err != nil {
		return nil, err
	}
	if len(tips) > 0 {
		n, err := e.Repo.CountBeyond(e.Ctx, tips, base)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			lose = append(lose, term.Count(n, "unmerged commit", "unmerged commits"))
		}
	}
	changed, err := e.uncommitted(w)
	if err != nil || !changed {
		return lose, err
	}
	if dirty, err := e.Repo.At(w.Worktree).Dirty(e.Ctx, true); err == nil && len(dirty) > 0 {
		lose = append(lose, term.Count(len(dirty), "uncommitted change", "uncommitted changes"))
	} else {
		lose = append(lose, "uncommitted changes git status does not show")
	}
	return lose, nil
}

// tips are the commits the workflow holds that its base does not reach: the
// branch's tip, the worktree's HEAD (detached, in a stopped rebase) and what
// the worktree's HEAD has pointed at; base is the base's tip, or the recorded
// base commit when the base branch is gone.
func (e *Env) tips(w *state.Workflow) ([]string, string, error) {
	base := w.BaseCommit
	if b, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Base); err == nil {
		base = b
	}
	var all []string
	if tip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch); err == nil {
		all = append(all, tip)
	}
	if _, err := os.Stat(w.Worktree); err == nil {
		wt := e.Repo.At(w.Worktree)
		if head, ok, err := wt.Head(e.Ctx); err == nil && ok {
			all = append(all, head)
		}
		if log, err := wt.Reflog(e.Ctx); err == nil {
			all = append(all, log...)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	ind, err := e.Repo.Independent(e.Ctx, append(all, base))
	if err != nil {
		return nil, "", err
	}
	return slices.DeleteFunc(ind, func(c string) bool { return c == base }), base, nil
}

// uncommitted reports whether the worktree holds work its HEAD does not: the
// files as they are on disk, whatever git status (and the index's skip-worktree
// and assume-unchanged bits) would say.
func (e *Env) uncommitted(w *state.Workflow) (bool, error) {
	if _, err := os.Stat(w.Worktree); err != nil {
		return false, nil
	}
	wt := e.Repo.At(w.Worktree)
	head, ok, err := wt.Head(e.Ctx)
	if err != nil || !ok {
		return false, err
	}
	tree, err := wt.WorktreeTree(e.Ctx)
	if err != nil {
		return false, err
	}
	headTree, err := wt.TreeOf(e.Ctx, head)
	return tree != headTree, err
}

// ignoredIn lists what git ignores in the worktree (directories end in "/"):
// it is deleted with the worktree, and not saved.
func (e *Env) ignoredIn(w *state.Workflow) []string {
	if _, err := os.Stat(w.Worktree); err != nil {
		return nil
	}
	ignored, _ := e.Repo.At(w.Worktree).Ignored(e.Ctx)
	return ignored
}

func listed(paths []string) string {
	shown := paths
	if len(shown) > 8 {
		shown = shown[:8]
	}
	names := make([]string, len(shown))
	for i, p := range shown {
		names[i] = term.Path(p)
	}
	s := strings.Join(names, ", ")
	if len(paths) > len(shown) {
		s += fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return s
}

// remove saves what would be lost, then removes the worktree and the branch.
func (e *Env) remove(w *state.Workflow) error {
	backup, err := e.backup(w)
	if err != nil {
		return fmt.Errorf("could not save #%s before removing it, so nothing was removed: %w", w.Issue, err)
	}
	ignored := e.ignoredIn(w)
	repo, moved := e.survivor(w)
	if err := repo.RemoveWorktree(e.Ctx, w.Worktree, true); err != nil {
		if _, statErr := os.Stat(w.Worktree); statErr == nil {
			return fmt.Errorf("could not remove the worktree %s: %w", w.Worktree, err)
		}
	}
	if tip, err := repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch); err == nil {
		if err := repo.DeleteRef(e.Ctx, "refs/heads/"+w.Branch, tip); err != nil {
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
	if len(ignored) > 0 {
		fmt.Fprintf(e.Out, "deleted %s git ignores, with the worktree: %s\n", term.Count(len(ignored), "entry", "entries"), listed(ignored))
	}
	if backup != "" {
		fmt.Fprintf(e.Out, "saved as %s\nto get it back: git worktree add -b %s <dir> %s\n", backup, w.Branch, backup)
	}
	e.gone(moved)
	return nil
}

// backup saves everything of the workflow the base does not reach (the
// worktree as it is on disk, untracked files included, and every tip) under
// refs/tdd/backup/: one commit whose parents hold them all when there are
// several. "" when there is nothing to save.
func (e *Env) backup(w *state.Workflow) (string, error) {
	if _, err := os.Stat(w.Worktree); err == nil {
		// the snapshot is a tip too: not git status, which hides edits to
		// skip-worktree files
		msg, err := commitmsg.Build(fmt.Sprintf("git tdd abort: uncommitted work of #%s", w.Issue), "")
		if err != nil {
			return "", err
		}
		snap, err := e.Repo.At(w.Worktree).Snapshot(e.Ctx, msg)
		if err != nil && !strings.Contains(err.Error(), "nothing to save") {
			return "", err
		}
		return e.saveTips(w, snap)
	}
	return e.saveTips(w, "")
}

// saveTips points the backup ref at the tips (with the snapshot, if any).
func (e *Env) saveTips(w *state.Workflow, snapshot string) (string, error) {
	tips, base, err := e.tips(w)
	if err != nil {
		return "", err
	}
	if snapshot != "" {
		if tips, err = e.Repo.Independent(e.Ctx, append(append([]string{snapshot}, tips...), base)); err != nil {
			return "", err
		}
		tips = slices.DeleteFunc(tips, func(c string) bool { return c == base })
	}
	var target string
	switch len(tips) {
	case 0:
		return "", nil
	case 1:
		target = tips[0]
	default:
		tree, err := e.Repo.TreeOf(e.Ctx, tips[0])
		if err != nil {
			return "", err
		}
		msg, err := commitmsg.Build(fmt.Sprintf("git tdd abort: everything #%s held", w.Issue),
			fmt.Sprintf("Its parents are the %d commits no ref kept: the branch, the worktree's HEAD and what it pointed at before.", len(tips)))
		if err != nil {
			return "", err
		}
		if target, err = e.Repo.CommitTree(e.Ctx, tree, tips, msg); err != nil {
			return "", err
		}
	}
	ref := BackupPrefix + w.Issue + "-" + time.Now().UTC().Format("20060102T150405Z")
	return ref, e.Repo.UpdateRef(e.Ctx, ref, target, "", "git tdd abort #"+w.Issue)
}

// survivor is a repository to run git from after the worktree is removed:
// the command's own, unless it runs inside that worktree, then the main
// working tree (or the common git directory). moved names the directory the
// user should change to, when theirs is going.
func (e *Env) survivor(w *state.Workflow) (*gitx.Repo, string) {
	here, there := realPath(e.Repo.Top), realPath(w.Worktree)
	if here != there && !strings.HasPrefix(here, there+string(filepath.Separator)) {
		return e.Repo, ""
	}
	if wts, err := e.Repo.Worktrees(e.Ctx); err == nil && len(wts) > 0 && !wts[0].Bare && realPath(wts[0].Path) != there {
		return e.Repo.At(wts[0].Path), wts[0].Path
	}
	return e.Repo.At(e.Repo.CommonDir), e.Repo.CommonDir
}

// gone tells a user whose current directory was the removed worktree where to go.
func (e *Env) gone(to string) {
	if to != "" {
		fmt.Fprintf(e.Err, "git-tdd: your current directory is gone with the worktree; cd %s\n", term.ShellQuote(to))
	}
}
