package sandbox

import (
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

// The decision: where the sandbox cannot be applied, the command refuses,
// says why, and names --no-sandbox.
func TestCheck(t *testing.T) {
	linux := Status{OS: "linux", Arch: "amd64", ABI: 7, Seccomp: true}
	with := func(f func(*Status)) Status { s := linux; f(&s); return s }
	ports := Policy{Network: true, Ports: []uint16{443}}
	for _, tc := range []struct {
		name   string
		status Status
		policy Policy
		want   string // "" confines
	}{
		{"Linux with Landlock ABI 7", linux, Policy{}, ""},
		{"the network limited to ports on ABI 7", linux, ports, ""},
		{"the lowest ABI that confines", with(func(s *Status) { s.ABI = 3 }), Policy{Network: true}, ""},
		{"arm64", with(func(s *Status) { s.Arch = "arm64" }), Policy{}, ""},
		{"macOS", Status{OS: "darwin", Arch: "arm64", Landlock: "not Linux"}, Policy{}, "the sandbox is Linux's Landlock, and this is darwin"},
		{"FreeBSD", Status{OS: "freebsd", Arch: "amd64"}, Policy{}, "this is freebsd"},
		{"no Landlock in the kernel", with(func(s *Status) { s.ABI, s.Landlock = 0, "the kernel is built without it" }), Policy{},
			"this kernel has no Landlock (the kernel is built without it); it needs Linux 6.2"},
		{"Landlock off at boot", with(func(s *Status) { s.ABI, s.Landlock = 0, "it is not enabled at boot" }), Policy{}, "not enabled at boot"},
		{"ABI 2: truncation is not restricted", with(func(s *Status) { s.ABI = 2 }), Policy{}, "(ABI 2) cannot stop a program from truncating"},
		{"ABI 1", with(func(s *Status) { s.ABI = 1 }), Policy{}, "it needs ABI 3"},
		{"an architecture without the filter", with(func(s *Status) { s.Arch = "riscv64" }), Policy{}, "built for amd64 and arm64, and this is riscv64"},
		{"no seccomp", with(func(s *Status) { s.Seccomp = false }), Policy{}, "cannot load seccomp filters"},
		{"ports without network rules", with(func(s *Status) { s.ABI = 3 }), ports, "needs Landlock's network rules (ABI 4, Linux 6.7); this kernel has ABI 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.status.Check(tc.policy)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("confined, want a refusal")
			}
			if !strings.HasPrefix(err.Error(), "this machine cannot confine an agent: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
			if exitcode.Of(err) != exitcode.Usage {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Usage)
			}
			if _, hint := exitcode.Lines(err); !strings.Contains(hint, "--no-sandbox on the command line") {
				t.Errorf("hint %q names no --no-sandbox", hint)
			}
		})
	}
}

func TestStatusLine(t *testing.T) {
	for _, tc := range []struct {
		status Status
		want   string
	}{
		{Status{OS: "linux", Arch: "amd64", ABI: 7, Seccomp: true},
			"this machine can confine agents: Landlock ABI 7 (network rules, signal and abstract socket scoping), seccomp on amd64"},
		{Status{OS: "linux", Arch: "arm64", ABI: 3, Seccomp: true}, "this machine can confine agents: Landlock ABI 3, seccomp on arm64"},
		{Status{OS: "linux", Arch: "amd64", ABI: 9, Seccomp: true},
			"this machine can confine agents: Landlock ABI 9 (network rules, signal and abstract socket scoping, unix socket rules), seccomp on amd64"},
		{Status{OS: "darwin", Arch: "arm64"}, "this machine cannot confine agents: the sandbox is Linux's Landlock, and this is darwin"},
		{Status{OS: "linux", Arch: "amd64", ABI: 2, Seccomp: true}, "this machine cannot confine agents: this kernel's Landlock (ABI 2) cannot stop"},
	} {
		if got := tc.status.Line(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Line() = %q, want %q", got, tc.want)
		}
	}
}
