package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

// Status is what this machine offers to confine a program.
type Status struct {
	OS       string // runtime.GOOS
	Arch     string // runtime.GOARCH
	ABI      int    // the Landlock ABI the kernel offers; 0: none
	Landlock string // why there is none, when ABI is 0
	Seccomp  bool   // seccomp filters can be loaded
}

// MinABI is the lowest Landlock ABI that confines: below it, truncate(2) is
// not restricted, and a program could empty a read-only hook or ref.
const MinABI = 3

// netABI is the first ABI with TCP port rules.
const netABI = 4

// Arches are the architectures the seccomp filter is built for.
var Arches = []string{"amd64", "arm64"}

// UnavailableError says why a program cannot be confined here.
type UnavailableError struct {
	Reason string
}

func (e *UnavailableError) Error() string {
	return "this machine cannot confine an agent: " + e.Reason
}

// NoSandboxHint is what a refused command tells the human.
const NoSandboxHint = "to run it unconfined anyway, give --no-sandbox on the command line (the audit log records it)"

// Check decides whether p can be enforced on a machine with this status: nil,
// or an error (exit 2) saying why not and naming --no-sandbox.
func (s Status) Check(p Policy) error {
	if reason := s.lacks(p); reason != "" {
		return exitcode.With(exitcode.Usage, &UnavailableError{Reason: reason}).WithHint(NoSandboxHint)
	}
	return nil
}

func (s Status) lacks(p Policy) string {
	switch {
	case s.OS != "linux":
		return fmt.Sprintf("the sandbox is Linux's Landlock, and this is %s", s.OS)
	case s.ABI == 0:
		why := s.Landlock
		if why == "" {
			why = "unavailable"
		}
		return fmt.Sprintf("this kernel has no Landlock (%s); it needs Linux 6.2 or later with landlock in its lsm= boot list", why)
	case s.ABI < MinABI:
		return fmt.Sprintf("this kernel's Landlock (ABI %d) cannot stop a program from truncating files it may only read; it needs ABI %d (Linux 6.2)", s.ABI, MinABI)
	case !slices.Contains(Arches, s.Arch):
		return fmt.Sprintf("the system call filter is built for %s, and this is %s", strings.Join(Arches, " and "), s.Arch)
	case !s.Seccomp:
		return "this kernel cannot load seccomp filters, which keep the network off"
	case len(p.Ports) > 0 && s.ABI < netABI:
		return fmt.Sprintf("limiting the network to some ports needs Landlock's network rules (ABI %d, Linux 6.7); this kernel has ABI %d", netABI, s.ABI)
	}
	return ""
}

// LimitsPorts reports whether this machine can limit the network to TCP
// ports (Policy.Ports): Landlock's network rules, ABI 4.
func (s Status) LimitsPorts() bool { return s.lacks(Policy{}) == "" && s.ABI >= netABI }

// Line is the line git tdd status and git diffgate status show.
func (s Status) Line() string {
	if reason := s.lacks(Policy{}); reason != "" {
		return "this machine cannot confine agents: " + reason
	}
	var has []string
	if s.ABI >= netABI {
		has = append(has, "network rules")
	}
	if s.ABI >= 6 {
		has = append(has, "signal and abstract socket scoping")
	}
	if s.ABI >= 9 {
		has = append(has, "unix socket rules")
	}
	line := fmt.Sprintf("this machine can confine agents: Landlock ABI %d", s.ABI)
	if len(has) > 0 {
		line += " (" + strings.Join(has, ", ") + ")"
	}
	return line + ", seccomp on " + s.Arch
}
