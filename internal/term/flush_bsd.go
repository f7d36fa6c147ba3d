//go:build darwin || freebsd || netbsd || openbsd

package term

import (
	"os"

	"golang.org/x/sys/unix"
)

// fread is FREAD of the BSDs' <sys/fcntl.h>, which x/sys/unix does not export:
// TIOCFLUSH with it discards the input queue only.
const fread = 0x1

// fionread is FIONREAD of <sys/filio.h>, _IOR('f', 127, int), the same on
// the BSDs and macOS, which x/sys/unix does not export there either.
const fionread = 0x4004667f

// flushInput discards what was typed (or written to the terminal) before the
// prompt, and reports whether there was any (FIONREAD).
func flushInput(f *os.File) (bool, error) {
	fd := int(f.Fd())
	n, err := unix.IoctlGetInt(fd, fionread)
	if err != nil {
		n = 0
	}
	return n > 0, unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread)
}
