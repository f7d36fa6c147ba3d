package agentloop

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// scaffold (N1) asks the agent for the tests; only the frozen surface (tests,
// test data, test configuration) may change.
func (l *loop) scaffold() (string, error) {
	p, err := l.prompt(true)
	if err != nil {
		return "", err
	}
	if err := l.work(prompts.Scaffold(p), true); err != nil {
		return l.retryRefusal(Scaffold, err)
	}
	return Red, nil
}

// red (N2): a valid red goes on to N3; tests that pass, do not run or fail
// for another reason go back to N1 with the reason; a broken run needs a human.
func (l *loop) red() (string, error) {
	err := l.L.Red(l.Issue)
	r := l.L.Last
	l.gate(r, err)
	switch {
	case err == nil:
		l.run.Scaffolds = 0
		l.run.Feedback, l.run.Outcome = output(r), ""
		return Implement, nil
	case exitcode.Of(err) == exitcode.Escalate:
		return "", human(err, "the test run broke: a human should look")
	case exitcode.Of(err) != exitcode.Refused:
		return "", err
	}
	return l.retry(Scaffold, err)
}

// implement (N3) asks the agent for the code; the frozen surface may not
// change.
func (l *loop) implement() (string, error) {
	p, err := l.prompt(false)
	if err != nil {
		return "", err
	}
	if err := l.work(prompts.Implement(p), false); err != nil {
		return l.retryRefusal(Implement, err)
	}
	return Green, nil
}

// green (N4): passing goes on to the lint; still failing goes back to N3 with
// the failures, until the retries are spent.
func (l *loop) green() (string, error) {
	err := l.L.Green(l.Issue)
	r := l.L.Last
	l.gate(r, err)
	switch {
	case err == nil:
		l.run.Implements = 0
		l.run.Feedback, l.run.Outcome = "", ""
		return Lint, nil
	case exitcode.Of(err) == exitcode.Escalate:
		return "", human(err, "a human should look")
	case exitcode.Of(err) != exitcode.Refused:
		return "", err
	}
	return l.retry(Implement, err)
}

// lint (N5): a failing lint is one more implementation attempt.
func (l *loop) lint() (string, error) {
	if len(l.cfg.Lint.Command) == 0 {
		return Review, nil
	}
	if err := l.L.Lint(l.Issue); err != nil {
		if exitcode.Of(err) != exitcode.Refused {
			return "", err
		}
		return l.retry(Implement, err)
	}
	return Review, nil
}

// review (N6) is git tdd merge's question on the terminal; without one the
// run stops here for a human.
func (l *loop) review() (string, error) {
	if l.Auto {
		return "", exitcode.New(exitcode.HumanRequired, "#%s is green; a human must review and merge it", l.Issue).
			WithHint("in a terminal: git tdd merge %s (or git tdd run %s again)", l.Issue, l.Issue)
	}
	l.L.AskReason = "Why? Your words go to the agent, for another round:"
	if len(l.run.Rejections)+1 >= l.cfg.Test.MaxRetries {
		l.L.AskReason = "Why? This is the last review the retries allow: your words are kept for you, and the run stops:"
	}
	err := l.L.Merge(l.Issue, false)
	var rej *lifecycle.Rejected
	if errors.As(err, &rej) {
		return l.rejected(rej.Reason)
	}
	if err != nil {
		return "", err
	}
	// this run's record: once it is merged or aborted, the issue may name an earlier one
	if st, ferr := l.L.Store.Load(); ferr == nil && st.Workflows[l.w.Name] != nil && st.Workflows[l.w.Name].Phase == state.PhaseAborted {
		return Aborted, nil
	}
	return Merged, nil
}

// rejected sends the change back to N3 with the human's reason, saved in the
// record, or stops for a human when the reviews are spent ([test]
// max_retries rejections in all): the work stays where it is.
func (l *loop) rejected(reason string) (string, error) {
	l.run.Rejections = append(l.run.Rejections, state.Rejection{Reason: reason, At: time.Now().UTC().Truncate(time.Second)})
	n := len(l.run.Rejections)
	l.event(Event{Event: "rejected", Attempt: n, Max: l.max(), Message: "the reviewer's reason: " + reason})
	if n >= l.cfg.Test.MaxRetries {
		return "", exitcode.New(exitcode.Escalate, "the merge of #%s was rejected %s, as many as [test] max_retries allows", l.Issue, term.Count(n, "time", "times")).
			WithHint("the reasons are in git tdd status %s, the work in %s: change it there and run git tdd green, then git tdd run %s asks again", l.Issue, l.w.Worktree, l.Issue)
	}
	l.run.Implements, l.run.Feedback = 0, ""
	return Implement, nil
}

// retryRefusal retries a refused answer; anything else (a path outside the
// worktree, an agent that fails, an answer cut off again and again) stops the run.
func (l *loop) retryRefusal(node string, err error) (string, error) {
	if exitcode.Of(err) != exitcode.Refused {
		return "", err
	}
	l.event(Event{Event: "refused", Attempt: l.attempt(), Max: l.max(), Message: err.Error()})
	return l.retry(node, err)
}

// retry sends the run back to node with why, or stops when the retries are spent.
func (l *loop) retry(node string, why error) (string, error) {
	n := &l.run.Scaffolds
	if node == Implement {
		n = &l.run.Implements
	}
	*n++
	msg := why.Error()
	if detail, _ := exitcode.Lines(why); len(detail) > 0 {
		msg += "\n" + strings.Join(detail, "\n")
	}
	if out := output(l.L.Last); out != "" && l.L.Last != nil && l.L.Last.Message == why.Error() {
		msg += "\n\nThe end of the test output:\n" + out
	}
	l.run.Feedback, l.run.Outcome = msg, outcome(node, why, l.L.Last)
	if *n >= l.cfg.Test.MaxRetries {
		return "", human(why, fmt.Sprintf("%s was tried %s without passing; a human should look", labels[node], term.Count(*n, "time", "times")))
	}
	return node, nil
}

// gate reports a gate's verdict.
func (l *loop) gate(r *lifecycle.GateResult, err error) {
	ev := Event{Event: "gate", Attempt: l.attempt(), Max: l.max()}
	if r != nil {
		ev.Verdict, ev.Message = r.Verdict, r.Message
		if r.Run != nil {
			ev.TestsMS = r.Run.Elapsed.Milliseconds()
			l.passing = len(r.Run.With(runner.Passed))
			ev.Passing = l.passing
		}
	}
	if err != nil {
		ev.ExitCode = exitcode.Of(err)
		if ev.Message == "" {
			ev.Message = err.Error()
		}
	}
	l.event(ev)
}

// human is a stop that needs a person: exit 4, with what happened.
func human(err error, why string) error {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Code == exitcode.Escalate {
		return e.WithHint("%s; git tdd run resumes where it stopped", why)
	}
	return exitcode.With(exitcode.Escalate, err).WithHint("%s; git tdd run resumes where it stopped", why)
}

// output is the end of a gate's test output, for the agent's next prompt.
func output(r *lifecycle.GateResult) string {
	if r == nil || r.Run == nil {
		return ""
	}
	t := r.Run.Tail
	const max = 6000
	if len(t) > max {
		t = "…" + t[len(t)-max:]
	}
	return strings.TrimSpace(t)
}
