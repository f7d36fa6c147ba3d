package heldtty

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// startTime is when process pid started, in clock ticks since boot: with its
// pid, it names one process (a pid is reused).
func startTime(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// alive reports whether process pid, started at start, still runs.
func alive(pid int, start string) bool {
	now := startTime(pid)
	return now != "" && now == start
}

// Device is the device number of f when it is a terminal.
func Device(f *os.File) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return 0, false
	}
	return uint64(st.Rdev), true
}
