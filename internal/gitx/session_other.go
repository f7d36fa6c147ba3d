//go:build !unix

package gitx

import (
	"os/exec"
	"syscall"
)

func ownSession() *syscall.SysProcAttr { return nil }

func endSession(*exec.Cmd) {}
