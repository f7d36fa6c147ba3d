package runner

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ReportError is a report that is not what the run was to write: a link, a
// FIFO or a device in its place, or one too large. The tests can write where
// it is; such a run is judged by nothing.
type ReportError struct{ msg string }

func (e *ReportError) Error() string { return "the tests changed their report: " + e.msg }

// maxReport bounds a report git-tdd reads: a suite's JUnit XML of a hundred
// thousand tests is tens of megabytes.
const maxReport = 512 << 20

// readReport reads a report the run wrote, in a directory the tests could
// write too: only as the regular file at path, not through a symbolic link
// (to /dev/zero, git-tdd would read until it runs out of memory), not a FIFO
// (open would wait for a writer that never comes, after the run's timeout),
// and no larger than maxReport.
func readReport(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, &ReportError{fmt.Sprintf("the report %s is a symbolic link, not the file the run was to write", path)}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &ReportError{fmt.Sprintf("the report %s is %s, not a regular file", path, kind(fi.Mode()))}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReport+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReport {
		return nil, &ReportError{fmt.Sprintf("the report %s is larger than %d MB", path, maxReport>>20)}
	}
	return data, nil
}

// kind names what a file that is not a regular one is.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a file"
}
