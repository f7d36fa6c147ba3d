package lifecycle

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Status is a workflow as status --json and list --json print it.
type Status struct {
	Issue      string    `json:"issue"`
	Name       string    `json:"name"` // the record: the issue, or <issue>-N for its Nth workflow
	Phase      string    `json:"phase"`
	Branch     string    `json:"branch"`
	Base       string    `json:"base"`
	From       string    `json:"from"`
	BaseCommit string    `json:"base_commit"`
	Worktree   string    `json:"worktree"`
	Subject    string    `json:"subject"`
	Red        RedJSON   `json:"red"`
	Green      GreenJSON `json:"green"`
	Attempts   Attempts  `json:"attempts"`
	Started    time.Time `json:"started"`
	Updated    time.Time `json:"updated"`
	Merged     string    `json:"merged"` // the merge commit, once merged
	Backup     string    `json:"backup"` // the ref an abort saved the work under
}

// RedJSON is the red of a Status.
type RedJSON struct {
	Commit  string   `json:"commit"`
	Failing []string `json:"failing"`
}

// GreenJSON is the green of a Status.
type GreenJSON struct {
	Commit string `json:"commit"`
}

// Attempts are the failed gate runs of a Status.
type Attempts struct {
	Red   int `json:"red"`
	Green int `json:"green"`
}

// StatusOf converts a workflow.
func StatusOf(w *state.Workflow) Status {
	failing := w.Red.Failing
	if failing == nil {
		failing = []string{}
	}
	name := w.Name
	if name == "" {
		name = w.Issue
	}
	return Status{Name: name, Issue: w.Issue, Phase: w.Phase, Branch: w.Branch, Base: w.Base, From: w.From, BaseCommit: w.BaseCommit,
		Worktree: w.Worktree, Subject: w.Subject, Red: RedJSON{w.Red.Commit, failing}, Green: GreenJSON{w.Green.Commit},
		Attempts: Attempts{w.Attempts.Red, w.Attempts.Green}, Started: w.Started, Updated: w.Updated, Merged: w.Merged, Backup: w.Backup}
}

// ShowStatus prints one workflow: the one named, or the one this worktree
// holds; elsewhere (the main checkout), the active ones.
func (e *Env) ShowStatus(issue string, asJSON bool) error {
	if issue == "" {
		st, err := e.Store.Load()
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		if e.here(st) == nil {
			return e.showActive(st, asJSON)
		}
	}
	w, _, err := e.Find(issue)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.Out, StatusOf(w))
	}
	printStatus(e.Out, w)
	return nil
}

// showActive lists the active workflows, as list does (--json: an array of
// what status --json prints).
func (e *Env) showActive(st *state.State, asJSON bool) error {
	active := []Status{}
	for _, w := range st.SortedWorkflows() {
		if w.Active() {
			active = append(active, StatusOf(w))
		}
	}
	if asJSON {
		return writeJSON(e.Out, active)
	}
	if len(active) == 0 {
		fmt.Fprintln(e.Out, "No active workflows; start one with: git tdd start <issue>")
		return nil
	}
	fmt.Fprintln(e.Out, "active workflows (name one for its details: git tdd status <issue>):")
	for _, w := range active {
		fmt.Fprintf(e.Out, "#%-8s %-8s %-24s %s\n", w.Name, w.Phase, w.Branch, w.Worktree)
	}
	return nil
}

// ActiveIssues prints the issue of every active workflow, one a line (for
// shell completion).
func (e *Env) ActiveIssues() error {
	st, err := e.Store.Load()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	for _, w := range st.SortedWorkflows() {
		if w.Active() {
			fmt.Fprintln(e.Out, w.Issue)
		}
	}
	return nil
}

// List prints every workflow.
func (e *Env) List(asJSON bool) error {
	st, err := e.Store.Load()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	ws := st.SortedWorkflows()
	if asJSON {
		out := make([]Status, len(ws))
		for i, w := range ws {
			out[i] = StatusOf(w)
		}
		return writeJSON(e.Out, out)
	}
	if len(ws) == 0 {
		fmt.Fprintln(e.Out, "No workflows; start one with: git tdd start <issue>")
	}
	for _, w := range ws {
		fmt.Fprintf(e.Out, "#%-8s %-8s %-24s %s\n", w.Name, w.Phase, w.Branch, w.Worktree)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // test ids hold ">" (vitest's "a > b"): readable as they are
	return enc.Encode(v)
}

func printStatus(out io.Writer, w *state.Workflow) {
	fmt.Fprintf(out, "#%s  %s  %s from %s (%s)", w.Name, w.Phase, w.Branch, w.StartPoint(), short(w.BaseCommit))
	if w.From != "" {
		fmt.Fprintf(out, ", merging into %s", w.Base)
	}
	fmt.Fprintln(out)
	if w.Subject != "" {
		fmt.Fprintf(out, "  subject   %s\n", w.Subject)
	}
	fmt.Fprintf(out, "  worktree  %s\n", w.Worktree)
	if w.Red.Commit != "" {
		fmt.Fprintf(out, "  red       %s, %d failing: %s\n", short(w.Red.Commit), len(w.Red.Failing), strings.Join(w.Red.Failing, ", "))
	}
	if w.Green.Commit != "" {
		fmt.Fprintf(out, "  green     %s\n", short(w.Green.Commit))
	}
	if w.Attempts.Red+w.Attempts.Green > 0 {
		fmt.Fprintf(out, "  attempts  red %d, green %d (since the last success)\n", w.Attempts.Red, w.Attempts.Green)
	}
	if w.Unconfined > 0 {
		fmt.Fprintf(out, "  sandbox   %d agent runs without the sandbox (--no-sandbox): local state may be forged; trust git tdd verify in CI\n", w.Unconfined)
	}
	if w.Run != nil && len(w.Run.Rejections) > 0 {
		// the human's words, but state.toml is a file: escaped, cut to a line
		last := w.Run.Rejections[len(w.Run.Rejections)-1]
		fmt.Fprintf(out, "  rejected  %s at the merge question; last: %s\n", term.Count(len(w.Run.Rejections), "time", "times"), term.Line(last.Reason, 100))
	}
	fmt.Fprintf(out, "  next      %s\n", next(w))
}

func next(w *state.Workflow) string {
	if w.Run != nil && w.Active() {
		// run drives it; the manual commands would skip its record
		return fmt.Sprintf("git tdd run %s resumes it (at %s)", w.Issue, term.Line(w.Run.Node, 40))
	}
	switch w.Phase {
	case state.PhaseStarted:
		return "write failing tests, then: git tdd red"
	case state.PhaseRed:
		return "make them pass, then: git tdd green"
	case state.PhaseGreen:
		return "refactor and run git tdd green again, or: git tdd merge " + w.Issue
	case state.PhaseMerged:
		return "nothing: merged as " + short(w.Merged)
	case state.PhaseAborted:
		if w.Backup != "" {
			return "nothing: aborted; saved as " + w.Backup
		}
		return "nothing: aborted"
	}
	return ""
}

// Lint runs [lint] command in the workflow's worktree.
func (e *Env) Lint(issue string) error {
	w, err := e.active(issue)
	if err != nil {
		return err
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return err
	}
	if len(cfg.Lint.Command) == 0 {
		fmt.Fprintln(e.Out, "No [lint] command is configured in .git-tdd.toml; nothing to run.")
		return nil
	}
	if err := e.lint(cfg, w.Worktree); err != nil {
		return err
	}
	fmt.Fprintln(e.Out, "lint: passes")
	return nil
}
