package term

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed (or written to the terminal) before the
// prompt, and reports whether there was any. In canonical mode TIOCINQ counts
// whole lines only: a line typed without its Enter is discarded unreported.
func flushInput(f *os.File) (bool, error) {
	fd := int(f.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil {
		n = 0
	}
	return n > 0, unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
