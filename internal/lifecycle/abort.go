package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"github.com/git-tdd/git-tdd/internal/hooks"
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
	tty, err := term.OpenTTY(e.Color, e.Getenv, e.Repo.CommonDir)
	if errors.Is(err, heldtty.ErrHeld) {
		return exitcode.New(exitcode.HumanRequired, "%v; nothing was changed", err)
	}
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
		// also when HEAD names no commit: its log still says what it held
		if log, err := wt.HeadLog(e.Ctx); err == nil {
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
// and assume-unchanged bits) would say. With its branch deleted under it,
// HEAD names no commit: the files are compared with the last one it held.
func (e *Env) uncommitted(w *state.Workflow) (bool, error) {
	head := e.worktreeHead(w)
	if head == "" {
		return false, nil
	}
	wt := e.Repo.At(w.Worktree)
	tree, err := wt.WorktreeTree(e.Ctx)
	if err != nil {
		return false, err
	}
	headTree, err := wt.TreeOf(e.Ctx, head)
	return tree != headTree, err
}

// worktreeHead is the commit the worktree's HEAD holds; when HEAD names no
// commit (its branch deleted under it), the last one its log names, else the
// commit the workflow started from. "" when there is no worktree.
func (e *Env) worktreeHead(w *state.Workflow) string {
	if _, err := os.Stat(w.Worktree); err != nil {
		return ""
	}
	wt := e.Repo.At(w.Worktree)
	head, ok, err := wt.Head(e.Ctx)
	switch {
	case err != nil:
		return "" // no working tree of this repository any more
	case ok:
		return head
	}
	if log, err := wt.HeadLog(e.Ctx); err == nil && len(log) > 0 {
		return log[0]
	}
	return w.BaseCommit
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
	backup, err := e.backup(w, "git tdd abort")
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
		fmt.Fprintf(e.Out, "saved as %s\n", backup)
		e.printRecovery(w, backup)
	}
	e.gone(moved)
	return nil
}

// printRecovery says how to get a backup back: git tdd start --from, which
// works in every mode, and the plain git command where no
// reference-transaction hook (git diffgate install --strict) refuses a branch
// created at unreviewed work.
func (e *Env) printRecovery(w *state.Workflow, backup string) {
	fmt.Fprintf(e.Out, "to get it back: git tdd start %s --from %s\n", w.Issue, backup)
	if !e.refsGuarded() {
		fmt.Fprintf(e.Out, "or, with git alone: git worktree add -b %s <dir> %s\n", w.Branch, backup)
	}
}

// refsGuarded reports whether a reference-transaction hook may refuse a
// branch created at unreviewed work: git diffgate's --strict, or another.
// When unsure, it is.
func (e *Env) refsGuarded() bool {
	dir, err := e.Repo.HooksDir(e.Ctx)
	if err != nil {
		return true
	}
	_, err = os.Lstat(filepath.Join(dir, hooks.Strict))
	return !errors.Is(err, fs.ErrNotExist)
}

// backup saves everything of the workflow the base does not reach (the
// worktree as it is on disk, untracked files included, and every tip) under
// refs/tdd/backup/: the worktree's snapshot, or HEAD when it holds nothing
// more, or, with several tips, one commit whose first parent is that and the
// others the rest (start --from reads it so). "" when there is nothing to
// save. command names who saved it, in the commits it writes.
func (e *Env) backup(w *state.Workflow, command string) (string, error) {
	var worktree string
	if head := e.worktreeHead(w); head != "" {
		// the snapshot is a tip too: not git status, which hides edits to
		// skip-worktree files
		msg, err := commitmsg.Build(fmt.Sprintf("%s: uncommitted work of #%s", command, w.Issue), "")
		if err != nil {
			return "", err
		}
		if worktree, err = e.Repo.At(w.Worktree).SnapshotOn(e.Ctx, head, msg); err != nil {
			return "", err
		}
	} else if tip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+w.Branch); err == nil {
		worktree = tip // no worktree: the branch stands for it
	}
	return e.saveTips(w, worktree, command)
}

// saveTips points a new backup ref at the worktree's commit (its snapshot, or
// HEAD) and every other tip the base and that commit do not reach.
func (e *Env) saveTips(w *state.Workflow, worktree, command string) (string, error) {
	tips, base, err := e.tips(w)
	if err != nil {
		return "", err
	}
	var others []string
	for _, t := range tips {
		if t == worktree {
			continue
		}
		if worktree != "" {
			if kept, err := e.Repo.IsAncestor(e.Ctx, t, worktree); err != nil {
				return "", err
			} else if kept {
				continue
			}
		}
		others = append(others, t)
	}
	beyond := false
	if worktree != "" {
		reached, err := e.Repo.IsAncestor(e.Ctx, worktree, base)
		if err != nil {
			return "", err
		}
		beyond = !reached
	}
	var target string
	switch {
	case len(others) == 0 && !beyond:
		return "", nil
	case len(others) == 0:
		target = worktree
	case worktree == "" && len(others) == 1:
		target = others[0]
	default:
		parents := others
		if worktree != "" {
			parents = append([]string{worktree}, others...)
		}
		tree, err := e.Repo.TreeOf(e.Ctx, parents[0])
		if err != nil {
			return "", err
		}
		msg, err := commitmsg.Build(fmt.Sprintf("%s: everything #%s held", command, w.Issue),
			fmt.Sprintf("Its first parent is the worktree as it was; the other %d are commits no ref kept: the branch, the worktree's HEAD and what it pointed at before.", len(parents)-1))
		if err != nil {
			return "", err
		}
		if target, err = e.Repo.CommitTree(e.Ctx, tree, parents, msg); err != nil {
			return "", err
		}
	}
	ref, err := e.newBackupRef(w.Issue)
	if err != nil {
		return "", err
	}
	return ref, e.Repo.UpdateRef(e.Ctx, ref, target, "", command+" #"+w.Issue)
}

// newBackupRef names a backup of issue: refs/tdd/backup/<issue>-<time>, with
// -2, -3 … after it when one of that second exists.
func (e *Env) newBackupRef(issue string) (string, error) {
	ref := BackupPrefix + issue + "-" + time.Now().UTC().Format(backupTime)
	for n := 2; ; n++ {
		if _, ok, err := e.Repo.RefValue(e.Ctx, ref); err != nil || !ok {
			return ref, err
		}
		ref = fmt.Sprintf("%s%s-%s-%d", BackupPrefix, issue, time.Now().UTC().Format(backupTime), n)
	}
}

// backupTime is how a backup ref's name says when it was made.
const backupTime = "20060102T150405Z"

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
