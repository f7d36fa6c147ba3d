package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Probe finds what this machine offers: the Landlock ABI version, and whether
// seccomp filters load.
func Probe() (Status, error) {
	st := Status{OS: runtime.GOOS, Arch: runtime.GOARCH, Seccomp: seccomp.Supported()}
	v, err := ll.LandlockGetABIVersion()
	switch {
	case err == nil:
		st.ABI = v
	case errors.Is(err, syscall.ENOSYS):
		st.Landlock = "the kernel is built without it, or a container's system call filter hides it"
	case errors.Is(err, syscall.EOPNOTSUPP):
		st.Landlock = "it is not enabled at boot"
	case errors.Is(err, syscall.EPERM):
		st.Landlock = "a container's system call filter refuses it"
	default:
		return st, fmt.Errorf("sandbox: probing Landlock: %w", err)
	}
	if st.ABI >= 6 {
		// Where signal scoping is broken (erratum 2, fixed in 6.12's
		// updates), go-landlock works at ABI 5, and so does this.
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&2 == 0 {
			st.ABI = 5
		}
	}
	return st, nil
}
