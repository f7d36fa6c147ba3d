//go:build !linux

package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// run refuses: there is no sandbox but on Linux.
func run(m message, _ int) error {
	st, _ := Probe()
	if err := st.Check(m.Policy); err != nil {
		return err
	}
	return errors.New("sandbox: not supported on this system")
}

func isPipe(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

func closeOnExec(fd int) { unix.CloseOnExec(fd) }

func self() (string, error) { return os.Executable() }

func fitPipe(*os.File, int) error { return nil }

func isSocket(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK
}
