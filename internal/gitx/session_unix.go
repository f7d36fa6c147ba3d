//go:build unix

package gitx

import (
	"os/exec"
	"syscall"
)

// ownSession starts a process in a session of its own, with no controlling
// terminal: what it runs (a filter's smudge command) cannot open /dev/tty
// and write on the screen a human is about to read.
func ownSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// endSession kills what is left of a finished command's session's first
// process group: a filter's command that stayed behind in the background.
func endSession(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
