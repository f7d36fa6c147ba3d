package lifecycle

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/contextcheck"
	"github.com/git-tdd/git-tdd/internal/excerpt"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// StartOptions are start's arguments.
type StartOptions struct {
	Issue   string
	Base    string   // where the branch starts: a branch, tag or commit; "" is the current branch
	Into    string   // the local branch the merge lands on; "" is Base when it is a local branch, else the current one
	LLD     string   // the design document
	Context []string // files the agent will be given
	Dir     string   // where the worktree goes; "" is [worktree] dir
	Subject string   // for the merge commit; "" takes the LLD's title
	// Again starts an issue whose earlier workflows were merged or aborted: a
	// new workflow, recorded beside them (state.State.NextName).
	Again bool
	// Resume is a backup abort (or merge) saved, refs/tdd/backup/<issue>-<time>:
	// the workflow starts again from it (start --from).
	Resume string
	// Count counts tokens for the context budget; nil skips that check.
	Count contextcheck.Counter
	// Run is git tdd run's progress, recorded with the workflow when run
	// starts it: status then says that git tdd run resumes it.
	Run *state.Run
}

// Start creates the issue's branch and worktree and records the workflow. The
// user's checkout, index and untracked files are not touched; on any failure,
// what it created is removed again.
func (e *Env) Start(o StartOptions) error {
	if err := CheckIssue(o.Issue); err != nil {
		return err
	}
	st, err := e.Store.Load()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if err := notActive(st, o.Issue); err != nil {
		return err
	}
	if o.Resume != "" {
		return e.resume(o, st)
	}
	base, from, baseCommit, err := e.base(o)
	if err != nil {
		return err
	}
	cfg, err := e.Config(baseCommit)
	if err != nil {
		return err
	}
	if err := checkIssueOf(cfg, o.Issue); err != nil {
		return err
	}
	if err := startedBefore(st, o); err != nil {
		return err
	}
	lld, context, subject, err := e.checkContext(cfg, o)
	if err != nil {
		return err
	}
	branch, err := e.newBranch(cfg, o.Issue)
	if err != nil {
		return err
	}
	if _, err := mergeSubject(&state.Workflow{Issue: o.Issue, Subject: subject, Branch: branch}); err != nil {
		hint := "give it one line of printable text with --subject"
		if o.Subject == "" && subject != "" {
			hint = "the subject is the LLD's title; give another with --subject"
		}
		return exitcode.With(exitcode.Usage, err).WithHint("%s; nothing was started", hint)
	}
	dir, err := e.worktreeDir(cfg, o)
	if err != nil {
		return err
	}
	if err := e.Repo.AddWorktree(e.Ctx, dir, branch, baseCommit); err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	// a write killed half way leaves a temporary file: never part of a red
	if err := e.Repo.Exclude(fsafe.TempPattern); err != nil {
		term.Warn(e.Err, "git-tdd", "could not add %s to info/exclude: %v", fsafe.TempPattern, err)
	}
	undo := func() {
		e.Repo.RemoveWorktree(e.Ctx, dir, true)
		e.Repo.DeleteRef(e.Ctx, "refs/heads/"+branch, baseCommit)
	}
	if err := e.setup(cfg, dir); err != nil {
		undo()
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	w := &state.Workflow{Issue: o.Issue, Phase: state.PhaseStarted, Branch: branch, Base: base, From: from, BaseCommit: baseCommit,
		Worktree: dir, Subject: subject, LLD: lld, Context: context, Started: now, Updated: now, Run: o.Run}
	if err := e.record(w, o); err != nil {
		undo()
		return err
	}
	e.audit(state.AuditEntry{Command: "tdd start", Issue: o.Issue, Path: dir, Parent: baseCommit, Outcome: "started", Detail: branch + " from " + w.StartPoint() + " into " + base + " as " + w.Name})
	if from != "" {
		fmt.Fprintf(e.Err, "git-tdd: started #%s on %s from %s (%s); it merges into %s\n", o.Issue, branch, from, short(baseCommit), base)
	} else {
		fmt.Fprintf(e.Err, "git-tdd: started #%s on %s from %s (%s)\n", o.Issue, branch, base, short(baseCommit))
	}
	if w.Name != w.Issue {
		fmt.Fprintf(e.Err, "git-tdd: recorded as %s beside the earlier workflows of #%s (git tdd list)\n", w.Name, w.Issue)
	}
	if o.Run == nil {
		fmt.Fprintf(e.Err, "git-tdd: write failing tests there, then run: git tdd red\n")
	}
	fmt.Fprintln(e.Out, dir)
	return nil
}

// newBranch is the issue's branch ([worktree] branch), which must be a valid
// name and not exist yet.
func (e *Env) newBranch(cfg *config.Config, issue string) (string, error) {
	branch := strings.ReplaceAll(cfg.Worktree.Branch, "{issue}", issue)
	if err := e.Repo.CheckBranchName(e.Ctx, branch); err != nil {
		return "", exitcode.With(exitcode.Usage, err)
	}
	if _, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+branch); err == nil {
		return "", exitcode.New(exitcode.Usage, "branch %s already exists", branch).WithHint("delete it (git branch -D %s), or set [worktree] branch", branch)
	}
	return branch, nil
}

// notActive refuses to start an issue that has a workflow in progress.
func notActive(st *state.State, issue string) error {
	if w := st.ActiveOf(issue); w != nil {
		return exitcode.New(exitcode.Usage, "issue %s is already active (%s): its worktree is %s on branch %s", issue, w.Phase, w.Worktree, w.Branch)
	}
	return nil
}

// checkIssueOf applies [issue] pattern of cfg to issue (CheckIssueNumber).
func checkIssueOf(cfg *config.Config, issue string) error {
	pattern, err := cfg.Issue.Matcher()
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	return CheckIssueNumber(issue, pattern)
}

// startedBefore refuses, without --again, an issue whose earlier workflows
// were merged or aborted: starting it again is a decision, and their records
// stay as they ended.
func startedBefore(st *state.State, o StartOptions) error {
	history := st.History(o.Issue)
	if len(history) == 0 || o.Again {
		return nil
	}
	lines := make([]string, len(history))
	for i, w := range history {
		lines[i] = "  " + ended(w)
	}
	return exitcode.New(exitcode.Usage, "issue %s was started before, and its history is kept; nothing was started", o.Issue).
		WithDetail(lines...).
		WithHint("git tdd start %s --again starts it again, recorded as %s beside the earlier ones; git tdd start %s --from <backup> resumes an aborted one from its backup",
			o.Issue, st.NextName(o.Issue), o.Issue)
}

// ended says how a workflow of the history ended, in a line.
func ended(w *state.Workflow) string {
	line := fmt.Sprintf("#%s %s", w.Name, w.Phase)
	switch {
	case w.Phase == state.PhaseMerged && w.Merged != "":
		line += " as " + short(w.Merged)
	case w.Phase == state.PhaseAborted && w.Backup != "":
		line += ", saved as " + w.Backup
	}
	if !w.Updated.IsZero() {
		line += " on " + w.Updated.Format("2006-01-02")
	}
	return line
}

// record writes a new workflow into state.toml under the next name of its
// issue, checking again under the lock that none is active and, without
// --again, that the issue has no history.
func (e *Env) record(w *state.Workflow, o StartOptions) error {
	return e.Store.Update(e.Ctx, func(st *state.State) error {
		if old := st.ActiveOf(w.Issue); old != nil {
			return exitcode.New(exitcode.Usage, "issue %s was started by another command meanwhile: %s", w.Issue, old.Worktree)
		}
		if err := startedBefore(st, o); err != nil {
			return err
		}
		if st.Workflows == nil {
			st.Workflows = map[string]*state.Workflow{}
		}
		w.Name = st.NextName(w.Issue)
		st.Workflows[w.Name] = w
		return nil
	})
}

// base resolves where the branch starts (--base: any commit-ish) and the
// local branch its merge lands on (--into; else --base when it is a local
// branch; else the branch checked out here). from is --base as given when it
// is not that branch. A start point the merge branch does not contain is
// allowed, with a warning: the merge brings its commits in too.
func (e *Env) base(o StartOptions) (into, from, commit string, err error) {
	current := ""
	full, err := e.Repo.Branch(e.Ctx)
	if err != nil {
		return "", "", "", err
	}
	current = strings.TrimPrefix(full, "refs/heads/")
	rev := o.Base
	if rev == "" {
		if current == "" {
			return "", "", "", exitcode.New(exitcode.Usage, "HEAD is detached: name where #%s starts with --base (and the branch it merges into with --into)", o.Issue)
		}
		rev = current
	}
	name := strings.TrimPrefix(rev, "refs/heads/")
	isBranch := false
	if c, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+name); err == nil && !strings.HasPrefix(name, "-") {
		commit, isBranch = c, true
	} else if commit, err = e.Repo.ResolveCommit(e.Ctx, rev); err != nil {
		return "", "", "", exitcode.New(exitcode.Usage, "%s is not a commit: --base takes a branch, a tag or a commit id", term.Line(rev, 80))
	}
	into = strings.TrimPrefix(o.Into, "refs/heads/")
	switch {
	case into == "" && isBranch:
		into = name
	case into == "" && current != "":
		into = current
	case into == "":
		return "", "", "", exitcode.New(exitcode.Usage, "HEAD is detached and %s is not a branch: name the branch #%s merges into with --into", term.Line(rev, 80), o.Issue)
	}
	intoTip, err := e.Repo.ResolveCommit(e.Ctx, "refs/heads/"+into)
	if err != nil || strings.HasPrefix(into, "-") {
		return "", "", "", exitcode.New(exitcode.Usage, "%s is not a local branch: the merge of #%s lands on one", term.Line(into, 80), o.Issue).
			WithHint("create it (git branch %s %s), or name another with --into", term.ShellQuote(into), term.ShellQuote(rev))
	}
	if !isBranch || name != into {
		from = rev
		if ok, err := e.Repo.IsAncestor(e.Ctx, commit, intoTip); err == nil && !ok {
			term.Warn(e.Err, "git-tdd", "%s (%s) is not in %s's history: merging #%s brings its commits into %s too", term.Line(rev, 80), short(commit), into, o.Issue, into)
		}
	}
	return into, from, commit, nil
}

// checkContext applies the context rules (DESIGN §6) to --context and --lld:
// a large Python or Go file is accepted, to be sent in part. The paths it
// returns are relative to the repository's top.
func (e *Env) checkContext(cfg *config.Config, o StartOptions) (lld string, context []string, subject string, err error) {
	paths := append([]string{}, o.Context...)
	if o.LLD != "" {
		paths = append([]string{o.LLD}, paths...)
	}
	if len(paths) == 0 {
		return "", nil, o.Subject, nil
	}
	res := contextcheck.Fit(e.Repo.Top, e.Cwd, paths, cfg.Context, o.Count, excerpt.Want{}, e.Repo.GitDir, e.Repo.CommonDir)
	if err := res.Err("the context is refused; nothing was started"); err != nil {
		return "", nil, "", err
	}
	subject = o.Subject
	files := res.Files
	if o.LLD != "" {
		f := files[0]
		lld, files = f.Path, files[1:]
		if subject == "" {
			subject = Title(f.Content)
		}
	}
	for _, f := range files {
		if f.Path != lld {
			context = append(context, f.Path)
		}
	}
	return lld, context, subject, nil
}

// Title is the first heading of a markdown document, without "#".
func Title(doc string) string {
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "#") {
			return strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
	}
	return ""
}

// worktreeDir is --dir, or [worktree] dir next to the main worktree.
func (e *Env) worktreeDir(cfg *config.Config, o StartOptions) (string, error) {
	dir := o.Dir
	if dir == "" {
		main := e.Repo.Top
		if wts, err := e.Repo.Worktrees(e.Ctx); err == nil && len(wts) > 0 && !wts[0].Bare {
			main = wts[0].Path
		}
		dir = strings.NewReplacer("{repo}", filepath.Base(main), "{issue}", o.Issue).Replace(cfg.Worktree.Dir)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(main, dir)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return "", exitcode.New(exitcode.Usage, "%s exists and is not empty", dir).WithHint("give another place with --dir")
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", exitcode.With(exitcode.Usage, err)
	}
	return dir, nil
}

// setup runs [worktree] setup in a new worktree, confined and in the sealed
// environment like the test runs (the commands are the repository's, which an
// agent may have written); any failure stops what needed it.
func (e *Env) setup(cfg *config.Config, dir string) error {
	for _, argv := range cfg.Worktree.Setup {
		fmt.Fprintf(e.Err, "git-tdd: setup: %s\n", strings.Join(argv, " "))
		res, err := e.run(cfg, runner.Spec{Command: argv, Runner: "generic", Dir: dir, Out: e.Err}, cfg.Worktree.SetupNetwork)
		var coded *exitcode.Error
		switch {
		case errors.As(err, &coded) && coded.Code != exitcode.Escalate:
			return err // the sandbox refused, or the run changed the .git file
		case err == nil && res.RawExit > 0:
			err = fmt.Errorf("exit status %d", res.RawExit)
		case err == nil && res.RawExit < 0:
			err = errors.New("killed by a signal")
		}
		if err != nil {
			return exitcode.New(exitcode.Escalate, "the setup command %q failed: %v; nothing was started", strings.Join(argv, " "), err)
		}
	}
	return nil
}
