//go:build darwin || freebsd || netbsd || openbsd

package term

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed (or written to the terminal) before the prompt.
func flushInput(f *os.File) error {
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, unix.FREAD)
}
