package agentbox

import (
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/sandbox"
)

// The decision to run an agent's program: where this machine cannot confine
// it, every command refuses (exit 2), says why and names --no-sandbox, unless
// the human gave it.
func TestRequire(t *testing.T) {
	good := sandbox.Status{OS: "linux", Arch: "amd64", ABI: 4, Seccomp: true}
	for _, tt := range []struct {
		name string
		st   sandbox.Status
		off  bool
		why  string // "" when it may run
	}{
		{"confines", good, false, ""},
		{"no Landlock", sandbox.Status{OS: "linux", Arch: "amd64", Landlock: "it is not enabled at boot", Seccomp: true}, false, "no Landlock (it is not enabled at boot)"},
		{"old Landlock", sandbox.Status{OS: "linux", Arch: "amd64", ABI: 2, Seccomp: true}, false, "truncating"},
		{"macOS", sandbox.Status{OS: "darwin", Arch: "arm64"}, false, "this is darwin"},
		{"no seccomp", sandbox.Status{OS: "linux", Arch: "amd64", ABI: 5}, false, "seccomp"},
		{"another arch", sandbox.Status{OS: "linux", Arch: "riscv64", ABI: 5, Seccomp: true}, false, "riscv64"},
		{"no Landlock, --no-sandbox", sandbox.Status{OS: "linux", Arch: "amd64"}, true, ""},
		{"macOS, --no-sandbox", sandbox.Status{OS: "darwin"}, true, ""},
	} {
		err := Require(tt.st, tt.off)
		switch {
		case tt.why == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.why == "":
		case err == nil:
			t.Errorf("%s: runs unconfined without --no-sandbox", tt.name)
		case exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.why):
			t.Errorf("%s: %v (exit %d), want exit 2 saying %q", tt.name, err, exitcode.Of(err), tt.why)
		default:
			if _, hint := exitcode.Lines(err); !strings.Contains(hint, "--no-sandbox") {
				t.Errorf("%s: the hint %q does not name --no-sandbox", tt.name, hint)
			}
		}
	}
}

func TestBoxEnv(t *testing.T) {
	b := &Box{TempDir: "/tmp/git-tdd-run-1"}
	got := strings.Join(b.Env([]string{"A=1", "TMPDIR=/tmp", "TMP=/x", "TEMP=/y"}), " ")
	if got != "A=1 TMPDIR=/tmp/git-tdd-run-1" {
		t.Errorf("Env = %q", got)
	}
	if got := (&Box{}).Env([]string{"TMPDIR=/tmp"}); got[0] != "TMPDIR=/tmp" {
		t.Errorf("unconfined Env = %q", got)
	}
}
