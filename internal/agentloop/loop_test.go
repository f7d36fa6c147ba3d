package agentloop

import (
	"testing"

	"github.com/git-tdd/git-tdd/internal/state"
)

// A workflow the loop did not start picks up at the node its phase implies.
func TestNodeOfPhase(t *testing.T) {
	for phase, want := range map[string]string{state.PhaseStarted: Scaffold, state.PhaseRed: Implement, state.PhaseGreen: Lint} {
		if got := nodeOfPhase(phase); got != want {
			t.Errorf("%s: %s, want %s", phase, got, want)
		}
	}
}

func TestKilo(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1234: "1.2k", 2_500_000: "2.5M"} {
		if got := kilo(n); got != want {
			t.Errorf("%d: %s, want %s", n, got, want)
		}
	}
}

// go test names a failing file from its package's directory: the file of the
// repository it is, when only one ends so.
func TestOnlyWithSuffix(t *testing.T) {
	files := map[string]bool{"calc/mul_test.go": true, "calc/add.go": true, "other/add.go": true}
	for suffix, want := range map[string]string{"/mul_test.go": "calc/mul_test.go", "/add.go": "", "/none.go": "", "/../add.go": ""} {
		if got := onlyWithSuffix(files, suffix); got != want {
			t.Errorf("%s: %q, want %q", suffix, got, want)
		}
	}
}
