// Package agentloop drives a coding agent through git tdd's gated TDD cycle,
// seed 002's graph: N0 the data policy, the context and the worktree; N1 the
// agent writes the tests; N2 the red gate; N3 the agent writes the code; N4
// the green gate; N5 the lint; N6 a human reviews on the terminal; N7 merge.
// The agent can skip no gate: the gates, the frozen test surface and the
// human decide, and everything the agent writes goes through write and patch.
package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/git-tdd/git-tdd/internal/agent"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/contextcheck"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// The nodes of the graph, as state.toml records them.
const (
	Scaffold  = "scaffold"  // N1
	Red       = "red"       // N2
	Implement = "implement" // N3
	Green     = "green"     // N4
	Lint      = "lint"      // N5
	Review    = "review"    // N6
	Merged    = "merged"    // N7
	Aborted   = "aborted"
)

var labels = map[string]string{Scaffold: "N1 scaffold", Red: "N2 red", Implement: "N3 implement", Green: "N4 green",
	Lint: "N5 lint", Review: "N6 review", Merged: "N7 merged", Aborted: "aborted"}

// Options are what a run needs.
type Options struct {
	L       *lifecycle.Env // the gates; its Out is the progress stream
	Agent   agent.Agent
	Issue   string
	LLD     string   // the design, for a new workflow
	Context []string // more files the agent is given
	Auto    bool     // never ask a human: stop before N6 with exit 3
	JSON    bool     // one object per transition on Out
	Out     io.Writer
	Err     io.Writer
	Count   contextcheck.Counter // counts tokens for the data policy
	// Live, when set, is Err with a line that shows, while an agent call
	// runs, its time and what it has received (Meter, which the agent is
	// given too).
	Live  *term.Live
	Meter *agent.Meter
}

// Event is one transition, as --json prints it.
type Event struct {
	Issue     string `json:"issue"`
	Node      string `json:"node"`
	Event     string `json:"event"` // enter, agent, truncated, refused, rolled-back, gate, rejected, stop, done
	Attempt   int    `json:"attempt,omitempty"`
	Max       int    `json:"max,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
	Calls     int    `json:"calls"`
	Verdict   string `json:"verdict,omitempty"`
	Message   string `json:"message,omitempty"`
	ExitCode  int    `json:"exit_code,omitempty"`
	AgentMS   int64  `json:"agent_ms,omitempty"` // an agent call's own time
	TestsMS   int64  `json:"tests_ms,omitempty"` // a gate's test run's own time
	Passing   int    `json:"passing,omitempty"`  // tests that pass, after a gate
}

// loop is one run in progress.
type loop struct {
	Options
	passing int // tests passing at the last gate
	ctx     context.Context
	w       *state.Workflow
	cfg     *config.Config
	run     *state.Run
	start   time.Time
	base    float64 // seconds of earlier sessions
}

// Run drives the issue's workflow from where it is (a new one is started) to
// the merge, or to the point where a human is needed.
func Run(o Options) error {
	l := &loop{Options: o, ctx: o.L.Ctx, start: time.Now()}
	if err := l.begin(); err != nil {
		return err
	}
	for {
		next, err := l.step()
		if err != nil {
			return l.stop(err)
		}
		if err := l.move(next, ""); err != nil {
			return err
		}
		if next == Merged || next == Aborted {
			l.summary(next)
			return nil
		}
	}
}

// begin finds or starts the workflow, prints the data policy, and resumes
// where the last run stopped. The design and the context files are read where
// the human named them and kept in the workflow's record, which every prompt
// sends from; one that cannot be read stops the run before any agent call.
func (l *loop) begin() error {
	w, _, err := l.L.Find(l.Issue)
	var ee *exitcode.Error
	started := false
	var named []contextcheck.File
	switch {
	case err == nil && w.Active():
	case err == nil || errors.As(err, &ee):
		limits := config.Default().Context
		if cfg, err := l.L.Config("HEAD"); err == nil {
			limits = cfg.Context
		}
		res := l.named(limits)
		if l.Count != nil && res.Tokens > limits.MaxTokens {
			res.Problems = append(res.Problems, contextcheck.Problem{Reason: fmt.Sprintf("the context is %d tokens, over the budget of %d tokens", res.Tokens, limits.MaxTokens)})
		}
		l.policy(res.Files, res.Problems)
		if err := res.Err("the design or context is refused; nothing was started"); err != nil {
			return err
		}
		// recorded with the workflow: status says run resumes it
		run := &state.Run{Node: Scaffold, Started: time.Now().UTC().Truncate(time.Second)}
		if err := l.L.Start(lifecycle.StartOptions{Issue: l.Issue, LLD: l.LLD, Context: l.Context, Count: l.Count, Run: run}); err != nil {
			return err
		}
		if w, _, err = l.L.Find(l.Issue); err != nil {
			return err
		}
		started, named = true, res.Files
	default:
		return err
	}
	l.w = w
	if l.cfg, err = l.L.Config(w.BaseCommit); err != nil {
		return err
	}
	if err := l.keep(named); err != nil {
		return err
	}
	files, err := l.kept()
	if err != nil {
		return err
	}
	switch {
	case w.Run == nil:
		l.policy(files, nil) // a workflow git tdd start began: its policy now
		l.run = &state.Run{Node: nodeOfPhase(w.Phase), Started: time.Now().UTC().Truncate(time.Second)}
	case started:
		l.run = w.Run
	default:
		l.run = w.Run
		l.base = w.Run.Seconds
		l.policy(files, nil)
		l.progress("resuming #%s at %s", l.Issue, labels[l.run.Node])
	}
	return l.save()
}

// nodeOfPhase is where a workflow the loop did not start picks up.
func nodeOfPhase(phase string) string {
	switch phase {
	case state.PhaseRed:
		return Implement
	case state.PhaseGreen:
		return Lint
	}
	return Scaffold
}

// step runs the current node and returns the next one.
func (l *loop) step() (string, error) {
	l.event(Event{Event: "enter", Attempt: l.attempt(), Max: l.max()})
	switch l.run.Node {
	case Scaffold:
		return l.scaffold()
	case Red:
		return l.red()
	case Implement:
		return l.implement()
	case Green:
		return l.green()
	case Lint:
		return l.lint()
	case Review:
		return l.review()
	}
	return "", fmt.Errorf("state.toml says run is at %q, which is no node of the graph", l.run.Node)
}

// move goes to the next node, with the reason for it, and saves.
func (l *loop) move(next, feedback string) error {
	l.run.Node = next
	if feedback != "" {
		l.run.Feedback = feedback
	}
	return l.save()
}

// save writes the run's progress into state.toml.
func (l *loop) save() error {
	l.run.Seconds = l.base + time.Since(l.start).Seconds()
	r := *l.run
	return l.L.Store.Update(l.ctx, func(st *state.State) error {
		w := st.Workflows[l.w.Name] // this run's record, merged or not: never another of the issue
		if w == nil {
			return fmt.Errorf("the workflow of issue %s disappeared from state.toml", l.Issue)
		}
		w.Run = &r
		return nil
	})
}

// stop ends the run where a human is needed (or the human said no): the
// state stays where it is, so that run resumes there.
func (l *loop) stop(err error) error {
	l.save()
	l.event(Event{Event: "stop", Message: err.Error(), ExitCode: exitcode.Of(err)})
	l.summary("stopped")
	return err
}

func (l *loop) attempt() int {
	switch l.run.Node {
	case Scaffold, Red:
		return l.run.Scaffolds + 1
	case Implement, Green, Lint:
		return l.run.Implements + 1
	case Review:
		return len(l.run.Rejections) + 1
	}
	return 0
}

func (l *loop) max() int {
	if l.attempt() == 0 {
		return 0
	}
	return l.cfg.Test.MaxRetries
}

// event records a transition: a progress line on Err, and with --json an
// object on Out.
func (l *loop) event(ev Event) {
	ev.Issue, ev.Node = l.Issue, l.run.Node
	ev.ElapsedMS = time.Since(l.start).Milliseconds()
	ev.TokensIn, ev.TokensOut, ev.Calls = l.run.TokensIn, l.run.TokensOut, l.run.Calls
	if l.JSON {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(l.Out, "%s\n", b)
	}
	line := labels[ev.Node]
	if ev.Max > 0 {
		line += fmt.Sprintf(" %d/%d", ev.Attempt, ev.Max)
	}
	switch ev.Event {
	case "enter":
		l.progress("%s", line)
	case "agent", "truncated", "rolled-back", "gate", "refused", "rejected":
		l.progress("%s: %s", line, ev.Message)
	}
}

func (l *loop) progress(format string, args ...any) {
	elapsed := time.Since(l.start).Seconds() + l.base
	// messages carry paths and text the model chose: escaped, so none can
	// write to the terminal (OSC 52 to the clipboard, line wrap off, …)
	fmt.Fprintf(l.Err, "git-tdd run [%6.1fs %s→%s tok]: %s\n", elapsed, kilo(l.run.TokensIn), kilo(l.run.TokensOut), term.Line(fmt.Sprintf(format, args...), 0))
}

// watch shows, until the returned stop is called, the live line of an agent
// call: how long it has run, and what it has received.
func (l *loop) watch() (stop func()) {
	if l.Live == nil {
		return func() {}
	}
	l.Meter.Reset()
	// all but the meter read here: the line is drawn on another goroutine
	label := labels[l.run.Node]
	if n, max := l.attempt(), l.max(); max > 0 {
		label += fmt.Sprintf(" %d/%d", n, max)
	}
	in, out, base := kilo(l.run.TokensIn), kilo(l.run.TokensOut), time.Since(l.start).Seconds()+l.base
	return l.Live.Show(func(d time.Duration) string {
		return fmt.Sprintf("git-tdd run [%6.1fs %s→%s tok]: %s: waiting for the agent: %s", base+d.Seconds(), in, out, label, received(d, l.Meter))
	})
}

// received says how long a call has run and what has come of it.
func received(d time.Duration, m *agent.Meter) string {
	s := fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	switch bytes, tokens := m.Received(); {
	case tokens > 0:
		s += ", " + kilo(int(tokens)) + " tokens received"
	case bytes > 0:
		s += ", " + kilo(int(bytes)) + " bytes received"
	}
	return s
}

// summary says how the run went.
func (l *loop) summary(outcome string) {
	if l.JSON {
		l.event(Event{Event: "done", Verdict: outcome})
		return
	}
	tests := ""
	if l.passing > 0 {
		tests = " · " + term.Count(l.passing, "test passes", "tests pass")
	}
	fmt.Fprintf(l.Out, "run #%s: %s · %s, %s → %s tokens%s · %.1fs\n", l.Issue, outcome,
		term.Count(l.run.Calls, "agent call", "agent calls"), kilo(l.run.TokensIn), kilo(l.run.TokensOut), tests, l.base+time.Since(l.start).Seconds())
}

// kilo writes a count compactly: 950, 12.3k, 1.2M.
func kilo(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// policy prints, before anything is sent, what is sent where and how much of
// it there is (seed 002, N0): each file the human named and what part of it
// is sent, or why it is refused.
func (l *loop) policy(files []contextcheck.File, problems []contextcheck.Problem) {
	fmt.Fprintf(l.Err, "git-tdd run #%s: data policy\n", l.Issue)
	fmt.Fprintf(l.Err, "  sent to:  %s\n", term.Line(l.Agent.Describe(), 0)) // from the configuration, which an agent may write
	label := "what:"
	for _, f := range files {
		what := f.Sent
		if f.Sent != "whole" {
			what = fmt.Sprintf("%s of %d KB", f.Sent, (f.Size+1023)/1024)
		}
		fmt.Fprintf(l.Err, "  %-9s %s: %s (%s tokens)\n", label, term.Path(f.Path), what, kilo(f.Tokens))
		label = ""
	}
	for _, p := range problems {
		if p.Path == "" {
			fmt.Fprintf(l.Err, "  %-9s refused: %s\n", label, p.Reason)
		} else {
			fmt.Fprintf(l.Err, "  %-9s %s: refused: %s\n", label, term.Path(p.Path), p.Reason)
		}
		label = ""
	}
	if label == "" {
		label = "then:"
	}
	fmt.Fprintf(l.Err, "  %-9s the tests, the files they import and the files the test output names (whole, or for a Python or Go file over the size limit its imports, outline and the definitions the task names), and the test output; each prompt lists its files and their size when it is sent\n", label)
	fmt.Fprintf(l.Err, "  never:    files outside the worktree, or that the context checks refuse (secrets, over 100 KB and not Python or Go); nothing the agent answers is run by git tdd\n")
}
