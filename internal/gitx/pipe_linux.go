package gitx

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// growPipe raises a pipe's buffer to 1 MiB (best effort) so that git keeps writing
// while we parse, instead of waiting on every 64 KiB.
func growPipe(r io.Reader) {
	if f, ok := r.(*os.File); ok {
		unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	}
}
