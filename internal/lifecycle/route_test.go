package lifecycle

import (
	"strings"
	"testing"
	"time"

	"github.com/git-tdd/git-tdd/internal/runner"
)

func res(exit int, tests ...runner.Test) *runner.Result {
	return &runner.Result{Exit: exit, RawExit: exit, Tests: tests, Runner: "pytest", Elapsed: time.Second}
}

func tc(id string, o runner.Outcome) runner.Test {
	file, _, _ := strings.Cut(id, "::")
	return runner.Test{ID: id, File: file, Outcome: o}
}

// DESIGN §5's red table, row by row (seed 002 TS-02 is exit 0).
func TestRouteRed(t *testing.T) {
	changed := map[string]bool{"tests/test_new.py": true}
	hollow := func(x runner.Test) bool { return strings.Contains(x.ID, "hollow") }
	tests := []struct {
		name     string
		result   *runner.Result
		attempts int
		code     int
		kind     string
		failing  string
		attempt  bool
	}{
		{"valid red: a new test fails by assertion", res(1, tc("tests/test_new.py::test_mul", runner.Failed), tc("tests/test_old.py::test_add", runner.Passed)), 0, 0, KindRed, "tests/test_new.py::test_mul", false},
		{"TS-02 tests pass prematurely", res(0, tc("tests/test_new.py::test_mul", runner.Passed)), 0, 1, KindPremature, "", false},
		{"failures only in untouched files", res(1, tc("tests/test_old.py::test_add", runner.Failed)), 0, 1, KindUnrelated, "", false},
		{"only errors, no assertion failure", res(1, tc("tests/test_new.py::test_mul", runner.Errored)), 0, 1, KindErrorsOnly, "", false},
		{"hollow failures are refused", res(1, tc("tests/test_new.py::test_hollow", runner.Failed)), 0, 1, KindHollow, "", false},
		{"a real failure beside a hollow one", res(1, tc("tests/test_new.py::test_hollow", runner.Failed), tc("tests/test_new.py::test_mul", runner.Failed)), 0, 0, KindRed, "tests/test_new.py::test_mul", false},
		{"mixed ours and theirs keeps ours", res(1, tc("tests/test_new.py::test_mul", runner.Failed), tc("tests/test_old.py::test_add", runner.Failed)), 0, 0, KindRed, "tests/test_new.py::test_mul", false},
		{"a test reported twice is recorded once", res(1, tc("tests/test_new.py::test_mul", runner.Failed), tc("tests/test_new.py::test_add", runner.Failed), tc("tests/test_new.py::test_mul", runner.Failed), tc("tests/test_new.py::test_add", runner.Failed)), 0, 0, KindRed, "tests/test_new.py::test_add,tests/test_new.py::test_mul", false},
		{"exit 5: no tests, scaffold", res(5), 0, 1, KindScaffold, "", true},
		{"exit 4: usage error, scaffold", res(4), 1, 1, KindScaffold, "", true},
		{"third scaffold failure escalates", res(5), 2, 4, KindScaffold, "", true},
		{"exit 2: collection error escalates", res(2, tc("tests/test_new.py", runner.Errored)), 0, 4, KindEscalate, "", false},
		{"exit 3: internal error escalates", res(3), 0, 4, KindEscalate, "", false},
		{"killed by a signal escalates", res(-1), 0, 4, KindEscalate, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := RouteRed(RedInput{Result: tt.result, ChangedTests: changed, Hollow: hollow, Attempts: tt.attempts, MaxRetries: 3})
			if v.Code != tt.code || v.Kind != tt.kind || strings.Join(v.Failing, ",") != tt.failing || v.Attempt != tt.attempt {
				t.Errorf("got %d %s %v attempt=%v: %s", v.Code, v.Kind, v.Failing, v.Attempt, v.Message)
			}
		})
	}
	timedOut := res(-1)
	timedOut.TimedOut = true
	if v := RouteRed(RedInput{Result: timedOut, MaxRetries: 3}); v.Code != 4 || !strings.Contains(v.Message, "timed out") {
		t.Errorf("timeout: %+v", v)
	}
	if v := RouteRed(RedInput{Result: res(0), MaxRetries: 3}); v.Message != "Tests passed prematurely. Write failing tests first." {
		t.Errorf("the seed's message: %q", v.Message)
	}
	if v := RouteRed(RedInput{Result: res(2, runner.Test{ID: "tests/test_new.py", Outcome: runner.Errored, Message: "ModuleNotFoundError: calc.missing"}), MaxRetries: 3}); !strings.Contains(strings.Join(v.List, "\n"), "ModuleNotFoundError") || !strings.Contains(v.Message, "stub") {
		t.Errorf("the collection error is quoted, with how to fail by assertion: %+v", v)
	}
}

func TestRouteRedGeneric(t *testing.T) {
	r := &runner.Result{Exit: 1, RawExit: 7, Runner: "generic"}
	if v := RouteRed(RedInput{Result: r, ChangedTests: map[string]bool{"t.sh": true}, MaxRetries: 3}); v.Kind != KindRed {
		t.Errorf("%+v", v)
	}
	if v := RouteRed(RedInput{Result: r, MaxRetries: 3}); v.Kind != KindUnrelated {
		t.Errorf("%+v", v)
	}
}

// Green: the red ids must be present and pass; seed 002 TS-04 is the retry limit.
func TestRouteGreen(t *testing.T) {
	red := []string{"tests/test_new.py::test_mul"}
	tests := []struct {
		name     string
		result   *runner.Result
		attempts int
		code     int
		kind     string
	}{
		{"valid green", res(0, tc("tests/test_new.py::test_mul", runner.Passed), tc("tests/test_old.py::test_add", runner.Passed)), 0, 0, KindGreen},
		{"still failing, attempt 1", res(1, tc("tests/test_new.py::test_mul", runner.Failed)), 0, 1, KindFailing},
		{"still failing, attempt 2", res(1, tc("tests/test_new.py::test_mul", runner.Failed)), 1, 1, KindFailing},
		{"TS-04 third failure escalates", res(1, tc("tests/test_new.py::test_mul", runner.Failed)), 2, 4, KindFailing},
		{"red test deleted: not run", res(0, tc("tests/test_old.py::test_add", runner.Passed)), 0, 1, KindMissing},
		{"red test skipped", res(0, tc("tests/test_new.py::test_mul", runner.Skipped)), 0, 1, KindMissing},
		{"another test now fails", res(1, tc("tests/test_new.py::test_mul", runner.Passed), tc("tests/test_old.py::test_add", runner.Failed)), 0, 1, KindFailing},
		{"no tests", res(5), 0, 1, KindFailing},
		{"collection error escalates", res(2), 0, 4, KindEscalate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := RouteGreen(GreenInput{Result: tt.result, RedIDs: red, Attempts: tt.attempts, MaxRetries: 3})
			if v.Code != tt.code || v.Kind != tt.kind {
				t.Errorf("got %d %s: %s", v.Code, v.Kind, v.Message)
			}
			if tt.kind == KindFailing && !strings.Contains(v.Message, "attempt") {
				t.Errorf("the attempt count is missing: %s", v.Message)
			}
		})
	}
}

func coll(file, msg string) runner.Test {
	return runner.Test{ID: file, File: file, Outcome: runner.Errored, Collection: true, Message: msg}
}

// The red table's newer rows: the natural red, function-level ownership, and
// strict xfail passes, which fail in pytest's report without anything failing.
func TestRouteRedProofs(t *testing.T) {
	changed := map[string]bool{"tests/test_new.py": true, "tests/test_old.py": true}
	natural := func(x runner.Test) bool { return strings.Contains(x.Message, "cannot import name") }
	ours := func(x runner.Test) bool { return !strings.HasSuffix(x.ID, "::test_old") }
	tests := []struct {
		name    string
		result  *runner.Result
		code    int
		kind    string
		failing string
	}{
		{"the natural red: the file cannot import a name of the repository",
			res(1, coll("tests/test_new.py", "E   ImportError: cannot import name 'mul' from 'calc'")), 0, KindRed, "tests/test_new.py"},
		{"the natural red under exit 2",
			res(2, coll("tests/test_new.py", "E   ImportError: cannot import name 'mul' from 'calc'")), 0, KindRed, "tests/test_new.py"},
		{"a natural red beside an assertion failure",
			res(1, coll("tests/test_new.py", "cannot import name"), tc("tests/test_old.py::test_new_one", runner.Failed)), 0, KindRed, "tests/test_new.py,tests/test_old.py::test_new_one"},
		{"another collection error escalates, even beside a red",
			res(1, coll("tests/test_new.py", "E   SyntaxError: invalid syntax"), tc("tests/test_old.py::test_new_one", runner.Failed)), 4, KindEscalate, ""},
		{"a failing test whose body did not change is not ours",
			res(1, tc("tests/test_old.py::test_old", runner.Failed)), 1, KindUnrelated, ""},
		{"ours among theirs in the same file",
			res(1, tc("tests/test_old.py::test_old", runner.Failed), tc("tests/test_old.py::test_new_one", runner.Failed)), 0, KindRed, "tests/test_old.py::test_new_one"},
		{"a strict xfail that passes is not a failure",
			res(1, runner.Test{ID: "tests/test_new.py::test_x", File: "tests/test_new.py", Outcome: runner.XPassed}), 1, KindHollow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := RouteRed(RedInput{Result: tt.result, ChangedTests: changed, Ours: ours, Natural: natural, MaxRetries: 3})
			if v.Code != tt.code || v.Kind != tt.kind || strings.Join(v.Failing, ",") != tt.failing {
				t.Errorf("got %d %s %v: %s", v.Code, v.Kind, v.Failing, v.Message)
			}
		})
	}
	v := RouteRed(RedInput{Result: res(1, coll("tests/test_new.py", "cannot import name"), tc("tests/test_new.py::test_a", runner.Failed)), ChangedTests: changed, Natural: natural, MaxRetries: 3})
	if v.Message != "1 test of this branch fails by assertion, and 1 test file cannot import what it tests yet" {
		t.Errorf("message: %q", v.Message)
	}
}

// Green is judged test by test from the report: an exit code alone never
// makes a green, and a red test file needs a collected test, all passed.
func TestCheckGreenProofs(t *testing.T) {
	tests := []struct {
		name   string
		result *runner.Result
		red    []string
		kind   string
		detail string
	}{
		{"exit 0, but the report says a red test failed", res(0, tc("tests/test_new.py::test_mul", runner.Failed)), []string{"tests/test_new.py::test_mul"}, KindFailing, "tests/test_new.py::test_mul"},
		{"exit 0, but another test failed", res(0, tc("tests/test_new.py::test_mul", runner.Passed), tc("tests/test_a.py::test_a", runner.Errored)), []string{"tests/test_new.py::test_mul"}, KindFailing, "tests/test_a.py::test_a"},
		{"every test passed, but the command failed", res(1, tc("tests/test_new.py::test_mul", runner.Passed)), []string{"tests/test_new.py::test_mul"}, KindFailing, ""},
		{"a strict xfail that passes is a failure", res(1, tc("tests/test_new.py::test_mul", runner.Passed), runner.Test{ID: "tests/test_x.py::test_x", Outcome: runner.XPassed}), []string{"tests/test_new.py::test_mul"}, KindFailing, "tests/test_x.py::test_x"},
		{"a red file: its tests pass", res(0, tc("tests/test_new.py::test_mul", runner.Passed), tc("tests/test_new.py::test_div", runner.Passed)), []string{"tests/test_new.py"}, KindGreen, ""},
		{"a red file: still cannot import", res(1, coll("tests/test_new.py", "cannot import name")), []string{"tests/test_new.py"}, KindFailing, "tests/test_new.py"},
		{"a red file: nothing collected from it", res(0, tc("tests/test_a.py::test_a", runner.Passed)), []string{"tests/test_new.py"}, KindMissing, "no test collected"},
		{"a red file: one of its tests is skipped", res(0, tc("tests/test_new.py::test_mul", runner.Passed), tc("tests/test_new.py::test_div", runner.Skipped)), []string{"tests/test_new.py"}, KindFailing, "test_div (skipped)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CheckGreen(tt.result, tt.red)
			if v.Kind != tt.kind || !strings.Contains(strings.Join(v.List, "\n"), tt.detail) {
				t.Errorf("got %s %v: %s", v.Kind, v.List, v.Message)
			}
		})
	}
}

// The re-proof of a red at merge and in verify: every recorded test fails again.
func TestRedFails(t *testing.T) {
	mods := Modules{Roots: []string{"/nowhere"}}
	tests := []struct {
		name   string
		result *runner.Result
		ids    []string
		bad    string
	}{
		{"the recorded test fails", res(1, tc("tests/t.py::test_a", runner.Failed)), []string{"tests/t.py::test_a"}, ""},
		{"it passes", res(0, tc("tests/t.py::test_a", runner.Passed)), []string{"tests/t.py::test_a"}, "tests/t.py::test_a passed"},
		{"it errors instead", res(1, tc("tests/t.py::test_a", runner.Errored)), []string{"tests/t.py::test_a"}, "tests/t.py::test_a error"},
		{"it is gone", res(5), []string{"tests/t.py::test_a"}, "not run"},
		{"a red file with a failing test", res(1, tc("tests/t.py::test_a", runner.Failed)), []string{"tests/t.py"}, ""},
		{"a red file that imports and passes", res(0, tc("tests/t.py::test_a", runner.Passed)), []string{"tests/t.py"}, "imports, and none of its tests fails"},
		{"a generic red that passes", &runner.Result{Exit: 0, Runner: "generic"}, nil, "the tests pass"},
		{"a generic red that fails", &runner.Result{Exit: 1, Runner: "generic"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(redFails(tt.result, tt.ids, mods), "\n")
			if (tt.bad == "") != (got == "") || !strings.Contains(got, tt.bad) {
				t.Errorf("got %q, want %q", got, tt.bad)
			}
		})
	}
}

// Issue 20: a failing test's id becomes a trailer of the red commit, which the
// human signs. An id that could add a line, hide text or not read back the
// same refuses the red, escaped, whatever else failed; nothing is rewritten.
func TestRouteRedUnwritableIDs(t *testing.T) {
	changed := map[string]bool{"tests/test_new.py": true, "tests/test_\nx.py": true}
	approve := "\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=" + strings.Repeat("ab", 20) + "\nX-Pad: "
	tests := []struct {
		name string
		ids  []string
		want []string // the List, each id escaped with its reason
	}{
		{"a parametrize id with line breaks", []string{"tests/test_new.py::test_mul[small" + approve + "]"},
			[]string{`"tests/test_new.py::test_mul[small\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=abababababababababababababababababababab\nX-Pad: ]": it holds a line break (U+000A)`}},
		{"beside a good one, only the bad one is named", []string{"tests/test_new.py::test_a", "tests/test_new.py::test_b[\r]"},
			[]string{`"tests/test_new.py::test_b[\r]": it holds a line break (U+000D)`}},
		{"a line separator", []string{"tests/test_new.py::test_b[a\u2028b]"},
			[]string{`"tests/test_new.py::test_b[a\u{2028}b]": it holds the line separator U+2028`}},
		{"an escape sequence", []string{"tests/test_new.py::test_b[\x1b[2J]"},
			[]string{`"tests/test_new.py::test_b[\033[2J]": it holds the control character U+001B`}},
		{"a bidi override", []string{"tests/test_new.py::test_b[\u202e]"},
			[]string{`"tests/test_new.py::test_b[\u{202e}]": it holds the bidirectional control U+202E`}},
		{"too long", []string{"tests/test_new.py::test_b[" + strings.Repeat("x", 600) + "]"},
			[]string{"tests/test_new.py::test_b[" + strings.Repeat("x", 600) + "]: it is 627 bytes long, over the limit of 512"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tests []runner.Test
			for _, id := range tt.ids {
				tests = append(tests, tc(id, runner.Failed))
			}
			v := RouteRed(RedInput{Result: res(1, tests...), ChangedTests: changed, MaxRetries: 3})
			if v.Code != 1 || v.Kind != KindUnwritable || len(v.Failing) != 0 || v.Attempt || !strings.Contains(v.Hint, "ids=") {
				t.Fatalf("got %d %s %v attempt=%v: %s", v.Code, v.Kind, v.Failing, v.Attempt, v.Message)
			}
			if strings.Join(v.List, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("list\n%s\nwant\n%s", strings.Join(v.List, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// a natural red's file path is written the same way
	v := RouteRed(RedInput{Result: res(1, coll("tests/test_\nx.py", "cannot import name")), ChangedTests: changed,
		Natural: func(runner.Test) bool { return true }, MaxRetries: 3})
	if v.Kind != KindUnwritable || len(v.List) != 1 || !strings.HasPrefix(v.List[0], `"tests/test_\nx.py"`) {
		t.Errorf("natural red: %+v", v)
	}
}

func TestRedMessage(t *testing.T) {
	msg, err := redMessage("87", []string{"tests/test_mul.py::test_mul", "tests/test_mul.py::test_big[1-2]"}, 1)
	want := "test(#87): red — 2 failing\n\nProved by git tdd red: the tests below fail, by assertion or because what they\nimport does not exist yet.\n\n" +
		"TDD-Phase: red\nTDD-Failing: tests/test_mul.py::test_mul\nTDD-Failing: tests/test_mul.py::test_big[1-2]\n"
	if err != nil || msg != want {
		t.Errorf("got %q %v\nwant %q", msg, err, want)
	}
	if msg, err := redMessage("87", nil, 2); err != nil || !strings.Contains(msg, "The tests fail with 2 changed test files.\n\nTDD-Phase: red\n") {
		t.Errorf("generic: %q %v", msg, err)
	}
	if _, err := redMessage("87", []string{"t[a\nDiffgate-Approved: x]"}, 1); err == nil || !strings.Contains(err.Error(), `the TDD-Failing value "t[a\nDiffgate-Approved: x]": it holds a line break`) {
		t.Errorf("a hostile id was written: %v", err)
	}
}

// TestUnique: each id once, in the order first seen (pytest 7 reports a test
// given twice twice).
func TestUnique(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"b", "a", "b", "a"}, []string{"b", "a"}},
		{[]string{"t.py::x", "t.py::x[1]", "t.py::x"}, []string{"t.py::x", "t.py::x[1]"}},
		{[]string{"t.py", "t.py::x", "t.py"}, []string{"t.py", "t.py::x"}},
	} {
		if got := unique(tt.in); strings.Join(got, ",") != strings.Join(tt.want, ",") || len(got) != len(tt.want) {
			t.Errorf("unique(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
