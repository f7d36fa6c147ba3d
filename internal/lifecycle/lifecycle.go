package lifecycle

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Env is what the lifecycle runs with.
type Env struct {
	Ctx     context.Context
	Repo    *gitx.Repo // the working tree the command runs in
	Store   *state.Store
	Config  func(rev string) (*config.Config, error) // .git-tdd.toml as committed at rev
	Out     io.Writer                                // results
	Err     io.Writer                                // diagnostics, and the tests' live output
	Getenv  func(string) string
	Color   string      // the --color flag
	NoPager bool        // --no-pager: reviews straight to the terminal
	Cwd     string      // where paths given on the command line are relative to (-C)
	JSON    bool        // red, green and merge print a GateResult instead of text
	Last    *GateResult // the last gate's result, printed or not
	// NoSandbox runs the repository's tests, lint and setup unconfined: only
	// the human's --no-sandbox on the command line sets it (Unconfined).
	NoSandbox bool

	// AskReason, when set, is what merge's REJECT asks the human next (git
	// tdd run sends the answer to its agent); merge then returns a *Rejected.
	AskReason string

	// Signing is how this repository signs commits (commit.gpgSign,
	// user.signingKey), read once (sync.OnceValues): every confined run
	// denies the key's file, and red and green read it while they stage, off
	// the way to the tests. Nil reads it each time.
	Signing func() (gitx.Signing, error)

	// Later runs cleanup in the background, which the command waits for
	// before it exits (cmdline.Env.Later); nil runs it at once.
	Later func(func())

	ahead *ahead       // the next confined run, prepared while a gate stages
	warm  *runner.Warm // the sandbox's helper, started while a gate stages
}

// prestart starts, unless the tests run unconfined, the sandbox's helper for
// a run in dir, while the gate stages and decides what to run; the returned
// func ends it if no run used it.
func (e *Env) prestart(dir string) func() {
	if e.NoSandbox {
		return func() {}
	}
	w := runner.Prestart(dir) // in the background: staging starts at once
	e.warm = w
	return func() {
		e.warm = nil
		w.Close()
	}
}

// later runs f as Later says.
func (e *Env) later(f func()) {
	if e.Later == nil {
		f()
		return
	}
	e.Later(f)
}

// signing is how commits are signed in wt: one git call answers whether they
// are and which key the sandbox denies, when wt is the repository the command
// runs in (a linked worktree may have its own configuration).
func (e *Env) signing(wt *gitx.Repo) (gitx.Signing, error) {
	if !wt.ConfigMaySetSigning() {
		return gitx.Signing{}, nil // no configuration file mentions them
	}
	if e.Signing != nil && wt.GitDir == e.Repo.GitDir {
		return e.Signing()
	}
	return wt.Signing(e.Ctx)
}

// signingKey is the configured user.signingkey, "" for none.
func (e *Env) signingKey() string {
	s, _ := e.signing(e.Repo)
	return s.Key
}

var issueNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[1-9][0-9]{0,17}$`) })

// CheckIssue refuses an issue name that cannot be part of a branch and a path.
func CheckIssue(issue string) error {
	if !state.IsIssueName(issue) || strings.Contains(issue, "..") || strings.HasSuffix(issue, ".lock") {
		return exitcode.New(exitcode.Usage, "invalid issue %q: an issue is a positive integer (87), or a name of letters, digits, '.', '_' and '-' that the [issue] pattern of .git-tdd.toml matches", issue)
	}
	return nil
}

// CheckIssueNumber refuses what is not an issue: an issue is a positive
// integer without leading zeros (87), or a name that pattern, [issue] pattern
// anchored (config.Issue.Matcher), matches whole; either way one CheckIssue
// accepts, since it is part of a branch and a path.
func CheckIssueNumber(issue string, pattern *regexp.Regexp) error {
	if err := CheckIssue(issue); err != nil {
		return err
	}
	if issueNumber().MatchString(issue) || pattern != nil && pattern.MatchString(issue) {
		return nil
	}
	const what = "invalid issue %q: an issue is a positive integer (87), or a name the [issue] pattern of .git-tdd.toml matches"
	if pattern == nil {
		return exitcode.New(exitcode.Usage, what+" (no [issue] pattern is set)", issue).
			WithHint("for names like PROJ-12, commit [issue] pattern = \"PROJ-[0-9]+\" in .git-tdd.toml")
	}
	return exitcode.New(exitcode.Usage, what+" whole: %s", issue, term.Line(pattern.String(), 120))
}

// Find returns the workflow of issue, or, when issue is "", the one whose
// worktree the command runs in.
func (e *Env) Find(issue string) (*state.Workflow, *state.State, error) {
	st, err := e.Store.Load()
	if err != nil {
		return nil, nil, exitcode.With(exitcode.Usage, err).WithHint("inspect or repair %s; it is never reset behind your back", e.Store.Path())
	}
	if issue != "" {
		w := st.Lookup(issue)
		if w == nil {
			return nil, nil, exitcode.New(exitcode.Usage, "there is no workflow for issue %s", issue).WithHint("git tdd list shows them; git tdd start %s begins one", issue)
		}
		return w, st, nil
	}
	if w := e.here(st); w != nil {
		return w, st, nil
	}
	var active []string
	for _, w := range st.SortedWorkflows() {
		if w.Active() {
			active = append(active, w.Issue)
		}
	}
	hint := "start one with git tdd start <issue>"
	if len(active) > 0 {
		hint = "active: " + strings.Join(active, ", ")
	}
	return nil, nil, exitcode.New(exitcode.Usage, "not inside a workflow's worktree: name the issue").WithHint("%s", hint)
}

// here is the active workflow whose worktree the command runs in, or nil.
func (e *Env) here(st *state.State) *state.Workflow {
	top := realPath(e.Repo.Top)
	for _, w := range st.SortedWorkflows() {
		if w.Active() && realPath(w.Worktree) == top {
			return w
		}
	}
	return nil
}

// active returns the workflow of issue if it is still in progress.
func (e *Env) active(issue string) (*state.Workflow, error) {
	w, _, err := e.Find(issue)
	if err != nil {
		return nil, err
	}
	if !w.Active() {
		return nil, exitcode.New(exitcode.Usage, "issue %s is %s", w.Issue, w.Phase).WithHint("git tdd start %s --again begins it again", w.Issue)
	}
	if _, err := os.Stat(w.Worktree); err != nil {
		return nil, exitcode.New(exitcode.Usage, "the worktree of issue %s is gone: %s", w.Issue, w.Worktree).
			WithHint("git tdd abort %s cleans up (and keeps the branch's commits under refs/tdd/backup/)", w.Issue)
	}
	return w, nil
}

// update changes the workflow of issue under the state lock: the one in
// progress (state.Lookup), which is the one every gate works on.
func (e *Env) update(issue string, fn func(w *state.Workflow) error) error {
	return e.updateIn(e.Ctx, issue, fn)
}

func (e *Env) updateIn(ctx context.Context, issue string, fn func(w *state.Workflow) error) error {
	return e.Store.Update(ctx, func(st *state.State) error {
		w := st.Lookup(issue)
		if w == nil {
			return fmt.Errorf("the workflow of issue %s disappeared from %s", issue, e.Store.Path())
		}
		if err := fn(w); err != nil {
			return err
		}
		w.Updated = time.Now().UTC().Truncate(time.Second)
		return nil
	})
}

// recordCommit is update for what a commit, made, leaves to record: an
// interruption (Ctrl-C) now would leave the commit unrecorded, so it does
// not stop it.
func (e *Env) recordCommit(issue string, fn func(w *state.Workflow) error) error {
	return e.updateIn(context.WithoutCancel(e.Ctx), issue, fn)
}

// audit appends to the audit log, interrupted or not: what happened is
// written down either way.
func (e *Env) audit(entry state.AuditEntry) {
	if err := e.Store.Audit(context.WithoutCancel(e.Ctx), entry); err != nil {
		term.Warn(e.Err, "git-tdd", "could not write the audit log: %v", err)
	}
}

// testFiles are the files of the worktree that [test] test_paths calls tests.
func testFiles(paths []string, patterns []string) []string {
	var out []string
	for _, p := range paths {
		if pathglob.Any(patterns, p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// printList prints a verdict's tests, indented; an id is the test runner's
// (a parametrize id, a JUnit classname), escaped.
func printList(w io.Writer, label string, ids []string) {
	for _, id := range ids {
		fmt.Fprintf(w, "  %s %s\n", label, term.Line(id, 0))
	}
}
