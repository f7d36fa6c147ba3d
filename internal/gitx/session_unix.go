//go:build unix

package gitx

import "syscall"

// ownSession starts a process in a session of its own, with no controlling
// terminal: what it runs (a filter's smudge command) cannot open /dev/tty
// and write on the screen a human is about to read.
func ownSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
