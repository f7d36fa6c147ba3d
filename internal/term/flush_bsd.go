//go:build darwin || freebsd || netbsd || openbsd

package term

import (
	"os"

	"golang.org/x/sys/unix"
)

// fread is FREAD of the BSDs' <sys/fcntl.h>, which x/sys/unix does not export:
// TIOCFLUSH with it discards the input queue only.
const fread = 0x1

// flushInput discards what was typed (or written to the terminal) before the prompt.
func flushInput(f *os.File) error {
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, fread)
}
