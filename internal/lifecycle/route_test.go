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
