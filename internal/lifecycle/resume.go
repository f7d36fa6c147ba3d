package lifecycle

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// resume starts a workflow again from a backup abort (or merge) saved: its
// branch at the commit the worktree's HEAD held, the uncommitted and untracked
// files back as they were (uncommitted), the phase its history proves (the
// last red or green commit since it left its base), and the base, subject and
// design as the aborted workflow recorded them. The new workflow is recorded
// before its branch is made: under git diffgate --strict an active
// workflow's branch is exempt, and a backup holds unreviewed commits. Any
// failure removes what it made and the record; the backup ref stays.
func (e *Env) resume(o StartOptions, st *state.State) error {
	if o.Base != "" {
		return exitcode.New(exitcode.Usage, "--base cannot be given with --from: the workflow resumes where its backup left it").
			WithHint("--into names the branch it merges into")
	}
	ref, commit, err := e.backupCommit(o.Resume)
	if err != nil {
		return err
	}
	old := backupOwner(st, ref)
	issue, ok := backupIssue(ref)
	if old != nil {
		issue, ok = old.Issue, true
	}
	if !ok {
		return exitcode.New(exitcode.Usage, "cannot tell whose work %s holds: no workflow recorded it, and its name is not <issue>-<time>", ref)
	}
	if issue != o.Issue {
		return exitcode.New(exitcode.Usage, "%s holds the work of #%s, not #%s", ref, issue, o.Issue).
			WithHint("git tdd start %s --from %s resumes it", issue, ref)
	}
	head, files, err := e.decodeBackup(commit)
	if err != nil {
		return err
	}
	w, err := e.resumed(o, old, head)
	if err != nil {
		return err
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return err
	}
	if err := checkIssueOf(cfg, o.Issue); err != nil {
		return err
	}
	if o.LLD != "" || len(o.Context) > 0 || o.Subject != "" {
		if w.LLD, w.Context, w.Subject, err = e.checkContext(cfg, o); err != nil {
			return err
		}
	}
	if err := e.phaseOf(w, head); err != nil {
		return err
	}
	if w.Branch, err = e.newBranch(cfg, o.Issue); err != nil {
		return err
	}
	if _, err := mergeSubject(w); err != nil {
		return exitcode.With(exitcode.Usage, err).WithHint("give it one line of printable text with --subject; nothing was started")
	}
	if w.Worktree, err = e.worktreeDir(cfg, o); err != nil {
		return err
	}
	o.Again = true // --from is a decision to start it again
	if err := e.record(w, o); err != nil {
		return err
	}
	undo := func() {
		e.Repo.RemoveWorktree(e.Ctx, w.Worktree, true)
		e.Repo.DeleteRef(e.Ctx, "refs/heads/"+w.Branch, head)
		e.Store.Update(e.Ctx, func(st *state.State) error {
			if st.Workflows[w.Name] != nil && st.Workflows[w.Name].Started.Equal(w.Started) {
				delete(st.Workflows, w.Name)
			}
			return nil
		})
	}
	if err := e.Repo.AddWorktree(e.Ctx, w.Worktree, w.Branch, head); err != nil {
		undo()
		return exitcode.With(exitcode.Usage, err).WithHint("nothing was started")
	}
	if err := e.Repo.Exclude(fsafe.TempPattern); err != nil {
		term.Warn(e.Err, "git-tdd", "could not add %s to info/exclude: %v", fsafe.TempPattern, err)
	}
	if files != "" {
		if err := e.restore(w, head, files); err != nil {
			undo()
			return fmt.Errorf("could not put the uncommitted work of %s back, so nothing was started: %w", ref, err)
		}
	}
	if err := e.setup(cfg, w.Worktree); err != nil {
		undo()
		return err
	}
	e.audit(state.AuditEntry{Command: "tdd start", Issue: o.Issue, Path: w.Worktree, Parent: w.BaseCommit, Outcome: "resumed",
		Detail: w.Branch + " at " + head + " from " + ref + " into " + w.Base + " as " + w.Name})
	restored := ""
	if files != "" {
		restored = ", with the uncommitted work restored"
	}
	fmt.Fprintf(e.Err, "git-tdd: resumed #%s from %s on %s at %s (%s)%s; recorded as %s\n", o.Issue, ref, w.Branch, short(head), w.Phase, restored, w.Name)
	fmt.Fprintf(e.Err, "git-tdd: next: %s (the backup stays: git update-ref -d %s drops it)\n", next(w), ref)
	fmt.Fprintln(e.Out, w.Worktree)
	return nil
}

// backupName is a backup ref's name under refs/tdd/backup/:
// <issue>-<time>, with -N after it when two were made in one second.
var backupName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)-[0-9]{8}T[0-9]{6}Z(?:-[0-9]+)?$`)
})

// backupCommit resolves --from: a ref under refs/tdd/backup/, given whole or
// by the name abort printed after that prefix; a name of plain characters,
// never a revision expression.
func (e *Env) backupCommit(from string) (ref, commit string, err error) {
	ref = from
	if !strings.HasPrefix(ref, "refs/") {
		ref = BackupPrefix + ref
	}
	name, ok := strings.CutPrefix(ref, BackupPrefix)
	if !ok || !refName().MatchString(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return "", "", exitcode.New(exitcode.Usage, "%s is not a backup: --from takes a backup that git tdd abort saved (%s<issue>-<time>)", term.Line(from, 80), BackupPrefix).
			WithHint("git for-each-ref %s lists them", BackupPrefix)
	}
	id, found, err := e.Repo.RefValue(e.Ctx, ref)
	if err == nil && found {
		commit, err = e.Repo.ResolveCommit(e.Ctx, id)
	}
	if err != nil || !found {
		return "", "", exitcode.New(exitcode.Usage, "there is no backup %s", ref).
			WithHint("git for-each-ref %s lists them", BackupPrefix)
	}
	return ref, commit, nil
}

// refName is what a backup's name under refs/tdd/backup/ may hold.
var refName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
})

// backupOwner is the workflow whose abort (or merge) saved ref, or nil.
func backupOwner(st *state.State, ref string) *state.Workflow {
	var owner *state.Workflow
	for _, w := range st.SortedWorkflows() {
		if w.Backup == ref {
			owner = w
		}
	}
	return owner
}

// backupIssue reads the issue out of a backup ref's name.
func backupIssue(ref string) (string, bool) {
	m := backupName().FindStringSubmatch(strings.TrimPrefix(ref, BackupPrefix))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// backupSubject is the subject of a commit a backup wrote (abort.go's backup):
// a snapshot of the worktree on its HEAD, or the commit that holds several tips
// with the worktree's first.
var backupSubject = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^git tdd (?:abort|merge): (uncommitted work of|everything) #`)
})

// decodeBackup reads a backup: head is the commit the worktree's HEAD held,
// files the tree of its files when they differed from it ("" when not).
func (e *Env) decodeBackup(commit string) (head, files string, err error) {
	c, err := e.commit(commit)
	if err != nil {
		return "", "", err
	}
	if m := backupSubject().FindStringSubmatch(c.Message); m != nil && m[1] == "everything" && len(c.Parents) > 0 {
		if c, err = e.commit(c.Parents[0]); err != nil {
			return "", "", err
		}
	}
	if m := backupSubject().FindStringSubmatch(c.Message); m != nil && m[1] == "uncommitted work of" && len(c.Parents) == 1 {
		return c.Parents[0], c.Tree, nil
	}
	return c.ID, "", nil
}

func (e *Env) commit(id string) (gitx.CommitHeader, error) {
	cs, err := e.Repo.Commits(e.Ctx, id)
	if err != nil {
		return gitx.CommitHeader{}, err
	}
	c, ok := cs[id]
	if !ok {
		return gitx.CommitHeader{}, fmt.Errorf("the commit %s is missing", short(id))
	}
	c.ID = id
	return c, nil
}

// resumed is the new workflow's record before its phase and branch are
// known: where it merges (--into, else where the aborted one merged, else
// the branch checked out here) and where it left that branch.
func (e *Env) resumed(o StartOptions, old *state.Workflow, head string) (*state.Workflow, error) {
	now := time.Now().UTC().Truncate(time.Second)
	w := &state.Workflow{Issue: o.Issue, Started: now, Updated: now}
	into := strings.TrimPrefix(o.Into, "refs/heads/")
	if old != nil {
		w.Subject, w.LLD, w.Context = old.Subject, old.LLD, old.Context
		if into == "" || into == old.Base {
			into, w.From = old.Base, old.From
		}
	}
	if into == "" {
		full, err := e.Repo.Branch(e.Ctx)
		if err != nil {
			return nil, err
		}
		if into = strings.TrimPrefix(full, "refs/heads/"); into == "" {
			return nil, exitcode.New(exitcode.Usage, "HEAD is detached: name the branch #%s merges into with --into", o.Issue)
		}
	}
	intoTip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+into)
	if err != nil || strings.HasPrefix(into, "-") {
		return nil, exitcode.New(exitcode.Usage, "%s is not a local branch: the merge of #%s lands on one", term.Line(into, 80), o.Issue).
			WithHint("name another with --into")
	}
	w.Base = into
	if old != nil && old.BaseCommit != "" {
		if ok, err := e.Repo.IsAncestor(e.Ctx, old.BaseCommit, head); err == nil && ok {
			w.BaseCommit = old.BaseCommit
			return w, nil
		}
	}
	if w.BaseCommit, err = e.Repo.MergeBase(e.Ctx, intoTip, head); err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	return w, nil
}

// phaseOf sets the phase the branch's history proves: green when its newest
// gate commit since the base is a green, red when it is a red, else started;
// with the red it found (its failing ids from the trailers) and the green.
func (e *Env) phaseOf(w *state.Workflow, head string) error {
	w.Phase = state.PhaseStarted
	commits, err := e.Repo.FirstParentTrailers(e.Ctx, w.BaseCommit+".."+head, PhaseTrailer, FailingTrailer)
	if err != nil {
		return err
	}
	for _, c := range commits {
		phases := c.Trailers[PhaseTrailer]
		switch {
		case len(phases) == 0:
			continue
		case phases[0] == "green" && w.Phase == state.PhaseStarted:
			w.Phase, w.Green = state.PhaseGreen, state.Commit{Commit: c.ID}
			continue
		case phases[0] != "red":
			continue
		}
		w.Red = state.RedRecord{Commit: c.ID, Failing: c.Trailers[FailingTrailer]}
		if w.Phase == state.PhaseStarted {
			w.Phase = state.PhaseRed
		}
		return nil
	}
	w.Phase, w.Green = state.PhaseStarted, state.Commit{} // a green without a red proves nothing
	return nil
}

// restore puts the backup's files into the new worktree, uncommitted: the
// files as files holds them (tracked files it lacks removed), the index as
// head's tree.
func (e *Env) restore(w *state.Workflow, head, files string) error {
	wt := e.Repo.At(w.Worktree)
	if err := wt.CheckoutTree(e.Ctx, files); err != nil {
		return err
	}
	tree, err := wt.TreeOf(e.Ctx, head)
	if err != nil {
		return err
	}
	return wt.SetIndex(e.Ctx, tree)
}
