package agentloop

import (
	"testing"
	"time"

	"github.com/git-tdd/git-tdd/internal/agent"
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

// The live line says how long a call has run and what came of it: the
// tokens a provider streamed, else the bytes a command wrote, else nothing.
func TestReceived(t *testing.T) {
	m := &agent.Meter{}
	if got := received(1400*time.Millisecond, m); got != "1s" {
		t.Errorf("nothing received: %q", got)
	}
	m.Bytes(2048)
	if got := received(12*time.Second, m); got != "12s, 2.0k bytes received" {
		t.Errorf("bytes: %q", got)
	}
	m.Tokens(412)
	if got := received(2*time.Second, m); got != "2s, 412 tokens received" {
		t.Errorf("tokens: %q", got)
	}
	m.Reset()
	if got := received(0, m); got != "0s" {
		t.Errorf("after Reset: %q", got)
	}
	if got := received(3*time.Second, nil); got != "3s" {
		t.Errorf("no meter: %q", got)
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
