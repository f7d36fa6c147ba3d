//go:build !unix

package gitx

import "syscall"

func ownSession() *syscall.SysProcAttr { return nil }
