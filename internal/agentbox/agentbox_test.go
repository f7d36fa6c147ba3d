package agentbox

import (
	"slices"
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

func TestAPIPorts(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		program string
		env     map[string]string
		want    []uint16
	}{
		{"python3", nil, nil},
		{"/usr/local/bin/aider", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8080"}, nil},
		{"claude", nil, []uint16{443}},
		{"/home/u/.npm/bin/codex", nil, []uint16{443}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:8080/v1"}, []uint16{443, 8080}},
		{"codex", map[string]string{"OPENAI_BASE_URL": "http://gateway.internal/v1"}, []uint16{443, 80}},
		{"codex", map[string]string{"OPENAI_BASE_URL": "https://gateway.internal/v1"}, []uint16{443}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "not a url", "OPENAI_BASE_URL": "http://h:99999"}, []uint16{443}},
		{"claude", map[string]string{"ANTHROPIC_BASE_URL": "http://a:9000", "OPENAI_BASE_URL": "http://b:9001"}, []uint16{443, 9000, 9001}},
	} {
		if got := APIPorts(tc.program, env(tc.env)); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.program, tc.env, got, tc.want)
		}
	}
}

func TestNetworkLine(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{}, "none"},
		{Settings{Network: true}, "every port"},
		{Settings{Network: true, Ports: []uint16{443, 8080}}, "TCP ports 443, 8080 only"},
	} {
		if got := tc.s.NetworkLine(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
