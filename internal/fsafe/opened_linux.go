package fsafe

import (
	"os"
	"strconv"
)

// openedPath is where an open file really is, from the kernel.
func openedPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}
