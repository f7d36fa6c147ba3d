package term

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed (or written to the terminal) before the prompt.
func flushInput(f *os.File) error {
	return unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
