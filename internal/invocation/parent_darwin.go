package invocation

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Parent finds the git process that runs this hook, from the kernel's process
// table (kern.proc.pid, kern.procargs2). Its start time errs early (startMargin).
func Parent() (Git, bool) {
	pid, argv, ok := findGit(os.Getppid(), readDarwin)
	if !ok {
		return Git{}, false
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Git{}, false
	}
	start := time.Unix(k.Proc.P_starttime.Unix())
	return Git{Pid: pid, Argv: argv, Start: start.Add(-startMargin)}, true
}

func readDarwin(pid int) (processInfo, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return processInfo{}, false
	}
	raw, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return processInfo{}, false
	}
	argv, ok := parseProcArgs2(raw)
	return processInfo{ppid: int(k.Eproc.Ppid), argv: argv}, ok
}
