// Package lifecycle is git tdd's issue-anchored TDD cycle: start a worktree,
// prove a red, prove a green, merge after a human approves, or abort without
// losing anything. Git and the test runner decide, never an agent's claim.
package lifecycle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Verdict is what a gate decided.
type Verdict struct {
	Code    int      // the exit code
	Kind    string   // what happened, for people and the audit log
	Failing []string // for a valid red: the ids that fail by assertion
	Message string
	List    []string // the tests the message is about
	Attempt bool     // this run counts against [test] max_retries
}

// The kinds of verdicts.
const (
	KindRed        = "red"
	KindGreen      = "green"
	KindPremature  = "premature"
	KindUnrelated  = "unrelated"
	KindErrorsOnly = "errors-only"
	KindHollow     = "hollow"
	KindScaffold   = "scaffold"
	KindEscalate   = "escalate"
	KindFailing    = "still-failing"
	KindMissing    = "missing"
)

// RedInput is what red decides on.
type RedInput struct {
	Result       *runner.Result
	ChangedTests map[string]bool // test files added or changed on the branch
	Hollow       func(runner.Test) bool
	Attempts     int // scaffold failures before this run
	MaxRetries   int
}

// RouteRed applies DESIGN §5's table to a test run.
func RouteRed(in RedInput) Verdict {
	r := in.Result
	switch {
	case r.TimedOut:
		return Verdict{Code: exitcode.Escalate, Kind: KindEscalate,
			Message: fmt.Sprintf("the test run timed out after %s; everything it started was stopped. A human should look", r.Elapsed.Round(100e6))}
	case r.Exit == 0:
		return Verdict{Code: exitcode.Refused, Kind: KindPremature, Message: "Tests passed prematurely. Write failing tests first."}
	case r.Exit == 4 || r.Exit == 5:
		v := Verdict{Code: exitcode.Refused, Kind: KindScaffold, Attempt: true,
			Message: fmt.Sprintf("the test scaffold does not run (%s); fix it (attempt %d of %d)", pytestMeaning(r.Exit), in.Attempts+1, in.MaxRetries)}
		if in.Attempts+1 >= in.MaxRetries {
			v.Code, v.Message = exitcode.Escalate, fmt.Sprintf("the test scaffold still does not run (%s) after %d attempts; a human should look", pytestMeaning(r.Exit), in.Attempts+1)
		}
		return v
	case r.Exit != 1:
		return Verdict{Code: exitcode.Escalate, Kind: KindEscalate, List: errorIDs(r),
			Message: fmt.Sprintf("the test run broke (%s); a human should look. A red must fail by assertion: import what exists and assert on it, or give the new code a stub that returns a wrong value", pytestMeaning(r.Exit))}
	}
	if r.Runner == "generic" {
		if len(in.ChangedTests) == 0 {
			return Verdict{Code: exitcode.Refused, Kind: KindUnrelated, Message: "the tests fail, but no test file was added or changed on this branch"}
		}
		return Verdict{Code: exitcode.OK, Kind: KindRed, Message: "the tests fail, and this branch changed " + term.Count(len(in.ChangedTests), "test file", "test files")}
	}
	var ours, hollow, theirs []string
	for _, t := range r.With(runner.Failed) {
		switch {
		case !in.ChangedTests[t.File]:
			theirs = append(theirs, t.ID)
		case in.Hollow != nil && in.Hollow(t):
			hollow = append(hollow, t.ID)
		default:
			ours = append(ours, t.ID)
		}
	}
	if len(ours) > 0 {
		return Verdict{Code: exitcode.OK, Kind: KindRed, Failing: ours, List: ours,
			Message: fmt.Sprintf("%s of this branch %s by assertion", term.Count(len(ours), "test", "tests"), term.Pick(len(ours), "fails", "fail"))}
	}
	switch {
	case len(hollow) > 0:
		return Verdict{Code: exitcode.Refused, Kind: KindHollow, List: hollow,
			Message: "the failing tests are hollow: they fail without calling the code (assert False, pytest.fail(), raise NotImplementedError, a skip). Make them call what the issue asks for"}
	case len(theirs) > 0:
		return Verdict{Code: exitcode.Refused, Kind: KindUnrelated, List: theirs,
			Message: "not a red for this issue: the only failures are in test files this branch did not touch"}
	}
	return Verdict{Code: exitcode.Refused, Kind: KindErrorsOnly, List: errorIDs(r),
		Message: "not a red: the tests break with errors (setup, fixtures, collection), none fails by assertion"}
}

// GreenInput is what green decides on.
type GreenInput struct {
	Result     *runner.Result
	RedIDs     []string
	Attempts   int // failed greens before this run
	MaxRetries int
}

// RouteGreen decides whether the red tests now pass, really, and counts the
// failed attempts against max_retries.
func RouteGreen(in GreenInput) Verdict {
	v := CheckGreen(in.Result, in.RedIDs)
	if v.Kind == KindGreen || v.Kind == KindEscalate {
		return v
	}
	k := in.Attempts + 1
	v.Attempt = true
	v.Message += fmt.Sprintf(" (attempt %d of %d)", k, in.MaxRetries)
	if k >= in.MaxRetries {
		v.Code = exitcode.Escalate
		v.Message += "; that was the last: a human should look"
	}
	return v
}

// CheckGreen decides whether a run passes with every red id present and passing.
func CheckGreen(r *runner.Result, redIDs []string) Verdict {
	switch {
	case r.TimedOut:
		return Verdict{Code: exitcode.Escalate, Kind: KindEscalate, Message: fmt.Sprintf("the test run timed out after %s; a human should look", r.Elapsed.Round(100e6))}
	case r.Exit == 2 || r.Exit == 3 || r.Exit < 0:
		return Verdict{Code: exitcode.Escalate, Kind: KindEscalate, List: errorIDs(r), Message: fmt.Sprintf("the test run broke (%s); a human should look", pytestMeaning(r.Exit))}
	}
	var missing []string
	for _, id := range redIDs {
		t, ok := r.Find(id)
		switch {
		case !ok:
			missing = append(missing, id+" (not run: deleted, renamed or deselected)")
		case t.Outcome == runner.Skipped:
			missing = append(missing, id+" (skipped)")
		}
	}
	failing := append(idsOf(r.With(runner.Failed)), idsOf(r.With(runner.Errored))...)
	passed := len(r.With(runner.Passed))
	switch {
	case r.Exit == 0 && len(missing) == 0:
		return Verdict{Code: exitcode.OK, Kind: KindGreen,
			Message: fmt.Sprintf("%s %s, the %s of the red among them", term.Count(passed, "test", "tests"), term.Pick(passed, "passes", "pass"), term.Count(len(redIDs), "test", "tests"))}
	case r.Exit == 4 || r.Exit == 5:
		return Verdict{Code: exitcode.Refused, Kind: KindFailing, Message: "the tests do not run (" + pytestMeaning(r.Exit) + ")"}
	case len(missing) > 0 && len(failing) == 0:
		return Verdict{Code: exitcode.Refused, Kind: KindMissing, List: missing, Message: "the red tests must run and pass, not be skipped or removed"}
	}
	return Verdict{Code: exitcode.Refused, Kind: KindFailing, List: append(failing, missing...), Message: "still failing"}
}

// pytestMeaning names pytest's exit codes.
func pytestMeaning(code int) string {
	switch code {
	case 1:
		return "tests failed"
	case 2:
		return "exit 2: interrupted, or an error while collecting the tests"
	case 3:
		return "exit 3: pytest's internal error"
	case 4:
		return "exit 4: pytest's usage error"
	case 5:
		return "exit 5: no tests collected"
	case -1:
		return "killed by a signal"
	}
	return fmt.Sprintf("exit %d", code)
}

func errorIDs(r *runner.Result) []string {
	var out []string
	for _, t := range r.With(runner.Errored) {
		line := t.ID
		if m := firstLines(t.Message, 6); m != "" {
			line += "\n" + m
		}
		out = append(out, line)
	}
	return out
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return strings.Join(lines, "\n")
}

func idsOf(ts []runner.Test) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	sort.Strings(out)
	return out
}
