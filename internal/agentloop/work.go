package agentloop

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/agent"
	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/edit"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/surface"
	"github.com/git-tdd/git-tdd/internal/term"
)

// maxCutOff is how often an answer cut off at the token limit is asked for again.
const maxCutOff = 3

// work asks the agent and applies what it did: in text mode the files of its
// answer, through write and patch; in edit mode what it changed in the
// worktree. tests says the node: N1, where only the frozen surface may
// change, or N3, where it may not. An error is a refusal to tell the agent.
func (l *loop) work(prompt string, tests bool) error {
	wt := l.L.Repo.At(l.w.Worktree)
	before, err := wt.WorktreeTree(l.ctx)
	if err != nil {
		return escalate(err)
	}
	if l.Agent.EditsFiles() {
		if _, err := l.ask(prompt); err != nil {
			return err
		}
		return l.keepAllowed(wt, before, tests)
	}
	secs, err := l.ask(prompt)
	if err != nil {
		return err
	}
	return l.applyAnswer(wt, before, secs, tests)
}

// ask sends the prompt and reads the answer into file sections; an answer
// cut off at the token limit is asked for again, with the same prompt, and
// never written.
func (l *loop) ask(prompt string) ([]edit.Section, error) {
	for try := 1; ; try++ {
		stop := l.watch()
		a, err := l.Agent.Ask(l.ctx, prompt, l.w.Worktree)
		stop()
		if err != nil {
			return nil, escalate(fmt.Errorf("the agent failed: %w", err))
		}
		l.count(a)
		if l.Agent.EditsFiles() {
			return nil, nil
		}
		var secs []edit.Section
		var pe *edit.ParseError
		if !a.Truncated {
			secs, err = edit.SplitAnswer(a.Text)
			if err == nil {
				return secs, nil
			}
			if !errors.As(err, &pe) || !pe.Truncated {
				return nil, exitcode.New(exitcode.Refused, "the answer has no usable files: %v", err)
			}
		}
		why := "stopped at the token limit (" + a.StopReason + ")"
		if pe != nil {
			why = "cut off: " + pe.Error()
		}
		l.event(Event{Event: "truncated", Message: fmt.Sprintf("the answer was %s; nothing written (try %d of %d)", why, try, maxCutOff)})
		if try == maxCutOff {
			return nil, escalate(exitcode.New(exitcode.Escalate, "the agent's answer was cut off %d times; nothing was written, every file is as it was", maxCutOff)).
				WithHint("raise [agent] max_tokens, or ask for less at a time (large files as FIND/REPLACE blocks); git tdd run resumes where it stopped")
		}
	}
}

// count adds a call's tokens and reports it.
func (l *loop) count(a *agent.Answer) {
	l.run.Calls++
	l.run.TokensIn += a.TokensIn
	l.run.TokensOut += a.TokensOut
	l.event(Event{Event: "agent", Attempt: l.attempt(), Max: l.max(), AgentMS: a.Elapsed.Milliseconds(),
		Message: fmt.Sprintf("the agent answered in %.1fs: %s → %s tokens", a.Elapsed.Seconds(), kilo(a.TokensIn), kilo(a.TokensOut))})
}

// applyAnswer writes the answer's files through the write and patch gates, all
// or nothing: a file the node may not change refuses the answer before any
// write, a path outside the worktree stops the run, and a write that fails
// puts back what was written before it.
func (l *loop) applyAnswer(wt *gitx.Repo, before string, secs []edit.Section, tests bool) error {
	env := l.applyEnv()
	rules := surface.New(l.cfg.Test.TestPaths, l.cfg.Test.FreezeGlobs())
	var wrong []string
	for _, s := range secs {
		rel, err := env.Resolve(s.Path)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("the agent named a path the gate refuses: %w", err)).
				WithHint("nothing was written; a human should look at what the agent is doing")
		}
		if rules.Frozen(rel) != tests {
			wrong = append(wrong, rel)
		}
	}
	if len(wrong) > 0 {
		if tests {
			return exitcode.New(exitcode.Refused, "while scaffolding only tests and test configuration may change, not %s; nothing was written", strings.Join(wrong, ", "))
		}
		return exitcode.New(exitcode.Refused, "the tests are frozen since the red: %s may not change; nothing was written (to change the tests, the red must be proved again)", strings.Join(wrong, ", "))
	}
	for _, s := range secs {
		var err error
		if s.Whole != nil {
			err = env.Write(apply.WriteOptions{Path: s.Path, Content: s.Whole, Auto: true})
		} else {
			err = env.Patch(apply.PatchOptions{Input: []byte(s.Edits), Auto: true})
		}
		if err != nil {
			l.restore(wt, before)
			return refusalOf(s.Path, err)
		}
	}
	return nil
}

// refusalOf turns a write or patch refusal into what the agent is told.
func refusalOf(p string, err error) error {
	msg := err.Error()
	if detail, hint := exitcode.Lines(err); len(detail)+len(hint) > 0 {
		msg += "\n" + strings.Join(detail, "\n")
	}
	if exitcode.Of(err) == exitcode.HumanRequired {
		msg = fmt.Sprintf("%s is large: it may not be replaced whole without a human. Send FIND/REPLACE blocks for it", p)
	}
	return exitcode.New(exitcode.Refused, "%s; nothing of the answer was kept", msg)
}

// keepAllowed judges what an agent that edits the worktree itself changed:
// what the node may not change is rolled back, and said.
func (l *loop) keepAllowed(wt *gitx.Repo, before string, tests bool) error {
	after, err := wt.WorktreeTree(l.ctx)
	if err != nil {
		return escalate(err)
	}
	raw, err := wt.ChangedBlobs(l.ctx, before, after)
	if err != nil {
		return escalate(err)
	}
	rules := surface.New(l.cfg.Test.TestPaths, l.cfg.Test.FreezeGlobs())
	var back []string
	for _, r := range raw {
		if rules.Frozen(r.Path) != tests {
			back = append(back, r.Path)
		}
	}
	if len(back) == 0 {
		if len(raw) == 0 {
			return exitcode.New(exitcode.Refused, "the agent changed nothing")
		}
		return nil
	}
	if err := wt.RestorePaths(l.ctx, before, back); err != nil {
		return escalate(err)
	}
	what := "only tests and test configuration may change while scaffolding"
	if !tests {
		what = "the tests are frozen since the red"
	}
	l.event(Event{Event: "rolled-back", Attempt: l.attempt(), Max: l.max(), Message: fmt.Sprintf("%s: put back %s", what, strings.Join(back, ", "))})
	if len(back) == len(raw) {
		return exitcode.New(exitcode.Refused, "%s; every change was rolled back: %s", what, strings.Join(back, ", "))
	}
	l.run.Feedback = fmt.Sprintf("%s; these changes were rolled back: %s", what, strings.Join(back, ", "))
	return nil
}

// restore puts the worktree's files back as they were before the answer.
func (l *loop) restore(wt *gitx.Repo, before string) {
	after, err := wt.WorktreeTree(l.ctx)
	if err != nil {
		return
	}
	raw, err := wt.ChangedBlobs(l.ctx, before, after)
	if err != nil {
		return
	}
	var paths []string
	for _, r := range raw {
		paths = append(paths, r.Path)
	}
	if err := wt.RestorePaths(l.ctx, before, paths); err != nil {
		term.Warn(l.Err, "git-tdd", "could not put back %s: %v", strings.Join(paths, ", "), err)
	}
}

// applyEnv writes into the workflow's worktree through the gates, never asking.
func (l *loop) applyEnv() *apply.Env {
	getenv := func(k string) string {
		if k == "GIT_TDD_AUTO" {
			return "1" // the loop asks no one while the agent works
		}
		return l.L.Getenv(k)
	}
	return &apply.Env{Ctx: l.ctx, Repo: l.L.Repo.At(l.w.Worktree), Store: l.L.Store, Cfg: l.cfg, Out: l.Err, Err: l.Err,
		Getenv: getenv, Color: l.L.Color, Command: "tdd run", Issue: l.Issue, Cwd: l.w.Worktree}
}

// escalate makes an error one a human must look at.
func escalate(err error) *exitcode.Error {
	var e *exitcode.Error
	if errors.As(err, &e) {
		e.Code = exitcode.Escalate
		return e
	}
	return exitcode.With(exitcode.Escalate, err)
}
