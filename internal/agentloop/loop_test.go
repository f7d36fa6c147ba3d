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
