package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/git-tdd/git-tdd/internal/term"
)

// Helper is the hidden command __sandbox-exec POLICY-FD REPORT-FD, which
// Wrap starts: it reads the policy and the program from the policy pipe,
// restricts itself and execs the program; it returns only when it refuses,
// with the exit code, having said why on stderr and on the report pipe. It
// runs nothing without a valid policy on a pipe.
func Helper(args []string, stderr io.Writer) int {
	report, err := helper(args)
	if errors.Is(err, errCancelled) {
		// a prestarted helper git-tdd had no program for (Pending.Cancel)
		report.Close()
		return 125
	}
	// only reached when the program did not start
	term.PrintError(stderr, "git-tdd", err)
	if report != nil {
		fmt.Fprintln(report, err)
		report.Close()
	}
	var ee *execError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 126
}

// execError is a program that could not be started in the sandbox, with the
// shell's exit code for it: 127 not found, 126 not runnable.
type execError struct {
	code int
	err  error
}

func (e *execError) Error() string { return e.err.Error() }
func (e *execError) Unwrap() error { return e.err }

// errCancelled is a prestarted helper's empty policy pipe: git-tdd had no
// program for it after all.
var errCancelled = errors.New("sandbox: cancelled")

var errNoPolicy = errors.New("sandbox: " + HelperCommand + " is git-tdd's own: it runs a program in the sandbox that a policy from git-tdd describes, and runs nothing without one")

func helper(args []string) (*os.File, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, errNoPolicy
	}
	fds := []int{}
	for _, a := range args {
		fd, err := strconv.Atoi(a)
		if err != nil || fd < 3 || slices.Contains(fds, fd) {
			return nil, errNoPolicy
		}
		fds = append(fds, fd)
	}
	supervised := -1 // the socket git-tdd's supervisor listens on (before ABI 6)
	if len(fds) == 3 {
		if !isSocket(fds[2]) {
			return nil, fmt.Errorf("%w (file descriptor %d is no socket)", errNoPolicy, fds[2])
		}
		closeOnExec(fds[2])
		supervised = fds[2]
	}
	report, err := inheritedPipe(fds[1], "report")
	if err != nil {
		return nil, err
	}
	in, err := inheritedPipe(fds[0], "policy")
	if err != nil {
		return report, err
	}
	m, err := decodeMessage(in)
	in.Close()
	if errors.Is(err, errEmpty) {
		return report, errCancelled
	}
	if err != nil {
		return report, err
	}
	return report, run(m, supervised)
}

// inheritedPipe is the pipe inherited as fd, closed when the program is
// executed; anything else is refused.
func inheritedPipe(fd int, name string) (*os.File, error) {
	if !isPipe(fd) {
		return nil, fmt.Errorf("%w (file descriptor %d is no %s pipe)", errNoPolicy, fd, name)
	}
	closeOnExec(fd)
	return os.NewFile(uintptr(fd), name), nil
}
