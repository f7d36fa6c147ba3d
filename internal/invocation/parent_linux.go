package invocation

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of /proc/PID/stat's start time: the kernel reports it in
// USER_HZ, which is 100 on every architecture Linux runs on.
const userHZ = 100

// Parent finds the git process that runs this hook, from /proc. Its start
// time errs early (startMargin): a change made just before git started is
// taken for one made after.
func Parent() (Git, bool) {
	pid, argv, ok := findGit(os.Getppid(), readLinux)
	if !ok {
		return Git{}, false
	}
	ticks, ok := startTicks(pid)
	if !ok {
		return Git{}, false
	}
	var boot unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot); err != nil {
		return Git{}, false
	}
	now := time.Now()
	age := time.Duration(boot.Nano()) - time.Duration(ticks)*time.Second/userHZ
	return Git{Pid: pid, Argv: argv, Start: now.Add(-age - startMargin)}, true
}

func readLinux(pid int) (processInfo, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	cmdline, err := os.ReadFile(dir + "cmdline")
	if err != nil {
		return processInfo{}, false
	}
	f, ok := statFields(dir)
	if !ok {
		return processInfo{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return processInfo{}, false
	}
	return processInfo{ppid: ppid, argv: splitNul(cmdline)}, true
}

func startTicks(pid int) (uint64, bool) {
	f, ok := statFields("/proc/" + strconv.Itoa(pid) + "/")
	if !ok {
		return 0, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	return ticks, err == nil
}

// statFields are /proc/PID/stat's fields after "pid (comm)": comm may hold
// spaces and parentheses, so they start after the last ')'.
func statFields(dir string) ([]string, bool) {
	data, err := os.ReadFile(dir + "stat")
	if err != nil {
		return nil, false
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return nil, false
	}
	f := strings.Fields(s[end+1:])
	return f, len(f) >= 20
}
