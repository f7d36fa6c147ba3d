//go:build !linux

package heldtty

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// startTime is empty where /proc is missing: a pid alone names the process.
func startTime(int) string { return "" }

// alive reports whether process pid runs.
func alive(pid int, _ string) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Device is the device number of f when it is a terminal.
func Device(f *os.File) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return 0, false
	}
	return uint64(st.Rdev), true
}
