// Package lifecycle is git tdd's issue-anchored TDD cycle: start a worktree,
// prove a red, prove a green, merge after a human approves, or abort without
// losing anything. Git and the test runner decide, never an agent's claim.
package lifecycle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/jstitle"
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
	Hint    string   // what to do next, when the message does not say
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
	// KindUnwritable: a failing test's id cannot be written into the red
	// commit's message (commitmsg.CheckValue)
	KindUnwritable = "unwritable-id"
)

// RedInput is what red decides on.
type RedInput struct {
	Result       *runner.Result
	ChangedTests map[string]bool // test files added or changed on the branch
	// Ours reports whether a failing test is this branch's: new, or its
	// definition changed. Nil counts every test of a changed file.
	Ours func(runner.Test) bool
	// Natural reports whether a test file that cannot be collected is the
	// natural red: this branch's, missing something of the repository.
	Natural    func(runner.Test) bool
	Hollow     func(runner.Test) bool
	Attempts   int // scaffold failures before this run
	MaxRetries int
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
			Message: fmt.Sprintf("the test scaffold does not run (%s); fix it (attempt %d of %d)", exitMeaning(r), in.Attempts+1, in.MaxRetries)}
		if in.Attempts+1 >= in.MaxRetries {
			v.Code, v.Message = exitcode.Escalate, fmt.Sprintf("the test scaffold still does not run (%s) after %d attempts; a human should look", exitMeaning(r), in.Attempts+1)
		}
		return v
	case r.Exit != 1 && (r.Exit != 2 || len(collectionErrors(r)) == 0):
		return broke(r, errorIDs(r))
	case r.Runner == "generic":
		if len(in.ChangedTests) == 0 {
			return Verdict{Code: exitcode.Refused, Kind: KindUnrelated, Message: "the tests fail, but no test file was added or changed on this branch"}
		}
		return Verdict{Code: exitcode.OK, Kind: KindRed, Message: "the tests fail, and this branch changed " + term.Count(len(in.ChangedTests), "test file", "test files")}
	}
	var natural, broken []string
	for _, t := range collectionErrors(r) {
		if in.Natural != nil && in.Natural(t) {
			natural = append(natural, t.ID)
		} else {
			broken = append(broken, errorLine(t))
		}
	}
	if len(broken) > 0 {
		return broke(r, broken)
	}
	var ours, hollow, theirs []string
	for _, t := range r.With(runner.Failed) {
		switch {
		case !in.ChangedTests[t.File] || (in.Ours != nil && !in.Ours(t)):
			theirs = append(theirs, t.ID)
		case in.Hollow != nil && in.Hollow(t):
			hollow = append(hollow, t.ID)
		default:
			ours = append(ours, t.ID)
		}
	}
	// a test the run reported twice (pytest 7 runs a file given twice twice)
	// is one test
	ours, natural, hollow, theirs = unique(ours), unique(natural), unique(hollow), unique(theirs)
	if len(ours)+len(natural) > 0 {
		failing := append(append([]string{}, ours...), natural...)
		sort.Strings(failing)
		if bad := unwritable(failing); len(bad) > 0 {
			return Verdict{Code: exitcode.Refused, Kind: KindUnwritable, List: bad,
				Message: fmt.Sprintf("a failing test's id cannot be written into the red commit: each id is a %s trailer of it, and must be one line of printable text of at most %d bytes", FailingTrailer, commitmsg.MaxValue),
				Hint:    "name the test without it (pytest: ids= of parametrize, or pytest.param(..., id=...)); nothing was committed"}
		}
		return Verdict{Code: exitcode.OK, Kind: KindRed, Failing: failing, List: failing, Message: redMessageOf(len(ours), len(natural))}
	}
	switch {
	case len(hollow) > 0:
		return Verdict{Code: exitcode.Refused, Kind: KindHollow, List: hollow,
			Message: "the failing tests are hollow: they fail without calling the code (assert False, pytest.fail(), raise NotImplementedError, a skip). Make them call what the issue asks for"}
	case len(r.With(runner.XPassed)) > 0 && len(theirs) == 0:
		return Verdict{Code: exitcode.Refused, Kind: KindHollow, List: idsOf(r.With(runner.XPassed)),
			Message: "the only failures are tests marked xfail(strict=True) that pass: nothing failed. A red test must fail by assertion"}
	case len(theirs) > 0:
		return Verdict{Code: exitcode.Refused, Kind: KindUnrelated, List: theirs,
			Message: "not a red for this issue: the only failing tests are not new on this branch and their bodies did not change"}
	}
	return Verdict{Code: exitcode.Refused, Kind: KindErrorsOnly, List: errorIDs(r),
		Message: "not a red: the tests break with errors (setup, fixtures, collection), none fails by assertion"}
}

// unwritable are the ids that cannot be a trailer's value, each escaped with
// the reason: refused, never rewritten.
func unwritable(ids []string) []string {
	var out []string
	for _, id := range ids {
		if err := commitmsg.CheckValue(id); err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

func redMessageOf(assertions, files int) string {
	a := fmt.Sprintf("%s by assertion", term.Pick(assertions, "fails", "fail"))
	f := fmt.Sprintf("%s yet", term.Pick(files, "cannot import what it tests", "cannot import what they test"))
	switch {
	case files == 0:
		return term.Count(assertions, "test", "tests") + " of this branch " + a
	case assertions == 0:
		return term.Count(files, "test file", "test files") + " of this branch " + f
	}
	return fmt.Sprintf("%s of this branch %s, and %s %s", term.Count(assertions, "test", "tests"), a, term.Count(files, "test file", "test files"), f)
}

// broke escalates a run that did not test anything it could judge.
func broke(r *runner.Result, list []string) Verdict {
	if len(list) == 0 {
		list = []string{"the end of its output:\n" + lastLines(r.Tail, 12)}
	}
	return Verdict{Code: exitcode.Escalate, Kind: KindEscalate, List: list,
		Message: fmt.Sprintf("the test run broke (%s); a human should look. A red must fail by assertion, or fail to import a name or module of this repository: fix what is quoted, or give the new code a stub that returns a wrong value", exitMeaning(r))}
}

func collectionErrors(r *runner.Result) []runner.Test {
	var out []runner.Test
	for _, t := range r.Tests {
		if t.Collection && t.Outcome == runner.Errored {
			out = append(out, t)
		}
	}
	return out
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
	switch {
	case k < in.MaxRetries:
		v.Message += fmt.Sprintf(" (attempt %d of %d)", k, in.MaxRetries)
	case k == in.MaxRetries:
		v.Code = exitcode.Escalate
		v.Message += fmt.Sprintf(" (attempt %d of %d); that was the last: a human should look", k, in.MaxRetries)
	default:
		v.Code = exitcode.Escalate
		v.Message += fmt.Sprintf(" (attempt %d, past the limit of %d): a human should look", k, in.MaxRetries)
	}
	return v
}

// CheckGreen decides from the report, test by test, whether a run is green:
// every red id present and passed (a red test file: at least one test
// collected from it, all passed), nothing failed, and the command's own exit
// code 0 too. An exit code alone never makes a green.
func CheckGreen(r *runner.Result, redIDs []string) Verdict {
	switch {
	case r.TimedOut:
		return Verdict{Code: exitcode.Escalate, Kind: KindEscalate, Message: fmt.Sprintf("the test run timed out after %s; a human should look", r.Elapsed.Round(100e6))}
	case r.Exit == 3 || r.Exit < 0 || (r.Exit == 2 && len(collectionErrors(r)) == 0):
		v := broke(r, errorIDs(r))
		v.Message = fmt.Sprintf("the test run broke (%s); a human should look", exitMeaning(r))
		return v
	case r.Exit == 4 || r.Exit == 5:
		return Verdict{Code: exitcode.Refused, Kind: KindFailing, Message: "the tests do not run (" + exitMeaning(r) + ")"}
	}
	var missing, failing []string
	for _, id := range redIDs {
		if isFileID(id) {
			missing, failing = checkRedFile(r, id, missing, failing)
			continue
		}
		t, ok := r.Find(id)
		switch {
		case !ok:
			missing = append(missing, id+" (not run: deleted, renamed or deselected)")
		case t.Outcome == runner.Skipped:
			missing = append(missing, id+" (skipped)")
		}
	}
	for _, t := range r.Tests {
		if t.Outcome == runner.Failed || t.Outcome == runner.Errored || t.Outcome == runner.XPassed {
			failing = append(failing, t.ID)
		}
	}
	failing = unique(failing)
	passed := len(r.With(runner.Passed))
	switch {
	case len(missing) == 0 && len(failing) == 0 && r.Exit == 0:
		return Verdict{Code: exitcode.OK, Kind: KindGreen,
			Message: fmt.Sprintf("%s %s, the %s of the red among them", term.Count(passed, "test", "tests"), term.Pick(passed, "passes", "pass"), redCount(redIDs))}
	case len(missing) == 0 && len(failing) == 0:
		return Verdict{Code: exitcode.Refused, Kind: KindFailing,
			Message: fmt.Sprintf("every test passed, but the test command exited %d", r.RawExit)}
	case len(missing) > 0 && len(failing) == 0:
		return Verdict{Code: exitcode.Refused, Kind: KindMissing, List: missing, Message: "the red tests must run and pass, not be skipped or removed"}
	}
	return Verdict{Code: exitcode.Refused, Kind: KindFailing, List: append(failing, missing...), Message: "still failing"}
}

// isFileID tells a natural red's record (a test file) from a test id: a
// path of a Python, Go or JavaScript file, where an id has "::" (or, from
// node's runner, a title, which has a space).
func isFileID(id string) bool {
	if strings.Contains(id, "::") {
		return false
	}
	return strings.HasSuffix(id, ".py") || strings.HasSuffix(id, ".go") || jstitle.IsSource(id) && !strings.ContainsAny(id, " \t")
}

// checkRedFile: at least one test collected from a red test file, all passed.
func checkRedFile(r *runner.Result, file string, missing, failing []string) ([]string, []string) {
	n := 0
	for _, t := range r.Tests {
		if t.File != file {
			continue
		}
		if t.Collection {
			failing = append(failing, t.ID)
			continue
		}
		n++
		if t.Outcome != runner.Passed {
			failing = append(failing, t.ID+" ("+string(t.Outcome)+")")
		}
	}
	if n == 0 {
		missing = append(missing, file+" (no test collected from it)")
	}
	return missing, failing
}

func redCount(ids []string) string {
	files := 0
	for _, id := range ids {
		if isFileID(id) {
			files++
		}
	}
	if files == 0 {
		return term.Count(len(ids), "test", "tests")
	}
	if files == len(ids) {
		return "tests of " + term.Count(files, "file", "files")
	}
	return term.Count(len(ids)-files, "test", "tests") + " and the tests of " + term.Count(files, "file", "files")
}

// unique is ids, each once, in the order first seen.
func unique(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// exitMeaning says what a run's exit code (in pytest's terms) means for its runner.
func exitMeaning(r *runner.Result) string {
	if r.Runner == "junit" {
		switch r.Exit {
		case 2:
			return fmt.Sprintf("exit %d, and no JUnit report it could be judged by: a build or load error", r.RawExit)
		case 3:
			return fmt.Sprintf("exit %d, although no test in its JUnit report failed", r.RawExit)
		case 5:
			return "its JUnit report holds no tests"
		}
	}
	return pytestMeaning(r.Exit)
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
		out = append(out, errorLine(t))
	}
	return out
}

// errorLine is a test's id with the start of its error, or for a file that
// cannot be collected, the end of its traceback, where the cause is.
func errorLine(t runner.Test) string {
	m := firstLines(t.Message, 6)
	if t.Collection {
		m = lastLines(t.Message, 6)
	}
	if m == "" {
		return t.ID
	}
	return t.ID + "\n" + m
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return strings.Join(lines, "\n")
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
