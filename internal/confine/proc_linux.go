package confine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the parent of every orphan below it,
// even one that started a session of its own, instead of init. git-tdd and
// git-diffgate call it first thing, so that nothing any program they start
// leaves (git's hooks and filters included) gets out from below them.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming the subreaper of the programs it starts: %w", err)
	}
	return nil
}

// NoInheritance marks every file descriptor but standard input, output and
// error close-on-exec: Go does so with what it opens, not with what the
// process inherited, and a file the human's shell, an IDE, a terminal
// multiplexer or make's jobserver left open in git-tdd would reach every
// program it starts, a confined one too (Landlock checks a path when it is
// opened, not a write to a descriptor already open).
func NoInheritance() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	// before Linux 5.11: each descriptor open
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("marking inherited files close-on-exec: %w", err)
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

// watch closes exited when the program exits, without reaping it: until Wait
// reaps it, its pid (and process group id) names nothing else, and what it left
// is killed before Wait waits for its output, which they may hold open.
func (p *Proc) watch() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid(), &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	close(p.exited)
}

// proc is a process as /proc/PID/stat shows it.
type proc struct {
	pid, ppid, sid int
	zombie         bool
	start          uint64 // since boot, in clock ticks
	comm           string
}

func readProc(pid int) (proc, bool) {
	var buf [512]byte
	data, err := readFileAt(unix.AT_FDCWD, "/proc/"+strconv.Itoa(pid)+"/stat", buf[:0])
	if err != nil {
		return proc{}, false
	}
	return parseStat(string(data))
}

// readFileAt reads the file named name (relative to the directory dir, or
// absolute with unix.AT_FDCWD) into buf, grown as needed: the small files
// of /proc, read often, with only the system calls that need to be made.
func readFileAt(dir int, name string, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// parseStat reads "pid (comm) state ppid pgrp session … starttime …"; comm
// may hold spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(s string) (proc, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return proc{}, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(s[:open]))
	ppid, err2 := strconv.Atoi(f[1])
	sid, err3 := strconv.Atoi(f[3])
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, sid: sid, zombie: f[0] == "Z" || f[0] == "X", start: start, comm: s[open+1 : end]}, true
}

// strays lists the processes below git-tdd that are left over: each child
// that is not spared (nor, but atQuestion, in git-tdd's session or a program
// still running), and everything below it.
func strays(atQuestion bool) []proc {
	children := childrenLister()
	if atQuestion {
		byParent := scanChildren()
		children = func(pid int) []int { return byParent[pid] }
	}
	ours := unix.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return nil
	}
	var out []proc
	var below func(pid int)
	below = func(pid int) {
		for _, c := range children(pid) {
			if p, ok := readProc(c); ok {
				out = append(out, p)
				below(c)
			}
		}
	}
	for _, c := range children(ours) {
		p, ok := readProc(c)
		if !ok || spared[key{p.pid, p.start}] || (!atQuestion && (p.sid == sid || running[p.pid] != nil)) {
			continue
		}
		out = append(out, p)
		below(c)
	}
	return out
}

// children is the set of git-tdd's children.
func children() map[key]bool {
	out := map[key]bool{}
	for _, c := range childrenLister()(unix.Getpid()) {
		if p, ok := readProc(c); ok {
			out[key{p.pid, p.start}] = true
		}
	}
	return out
}

// reap collects a dead child that became git-tdd's as an orphan, and reports
// whether it could.
func reap(pid int) bool {
	var ws unix.WaitStatus
	got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	return got == pid || errors.Is(err, unix.ECHILD)
}

// cmdline is a process's command line, or its name in brackets when it has
// none to show.
func cmdline(p proc) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	if err != nil || len(data) == 0 {
		return []string{"[" + p.comm + "]"}
	}
	return args
}

// childrenLister lists a process's children: from the kernel's children files
// (/proc/PID/task/TID/children), or, where it has none, from one scan of every
// process's stat.
func childrenLister() func(pid int) []int {
	if hasChildrenFiles() {
		return childrenFiles
	}
	byParent := scanChildren()
	return func(pid int) []int { return byParent[pid] }
}

// hasChildrenFiles is whether the kernel has children files
// (CONFIG_PROC_CHILDREN), which does not change while git-tdd runs.
var hasChildrenFiles = sync.OnceValue(func() bool {
	self := strconv.Itoa(unix.Getpid())
	_, err := os.Stat("/proc/" + self + "/task/" + self + "/children")
	return err == nil
})

// childrenFiles reads the children file of each of pid's threads: any of them
// may list a child, as an orphan goes to the first live thread of its
// subreaper. The threads are named once from the task directory and their
// files opened there; a file that is gone is a thread that ended.
func childrenFiles(pid int) []int {
	dir, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(dir)
	var buf [4096]byte
	var out []int
	for _, tid := range dirNames(dir, buf[:]) {
		data, err := readFileAt(dir, tid+"/children", buf[:0])
		if err != nil {
			continue // the thread ended
		}
		for _, field := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(field); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// scanChildren maps every process to its children, from every process's
// stat, each opened by name in /proc (reading each process's directory would
// cost more than its stat).
func scanChildren() map[int][]int {
	out := map[int][]int{}
	dir, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return out
	}
	defer unix.Close(dir)
	var buf [4096]byte
	for _, name := range dirNames(dir, buf[:]) {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := readFileAt(dir, name+"/stat", buf[:0])
		if err != nil {
			continue // the process ended
		}
		if p, ok := parseStat(string(data)); ok {
			out[p.ppid] = append(out[p.ppid], p.pid)
		}
	}
	return out
}

// dirNames lists the names in the directory dir, with buf for the entries.
func dirNames(dir int, buf []byte) []string {
	var names []string
	for {
		n, err := unix.Getdents(dir, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return names
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}

// wait kills what the program left as soon as it exits, and only then reaps
// it and waits for its output: a process it left may hold the output open.
func (p *Proc) wait() error {
	<-p.exited
	_, serr := sweep(false)
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	err := p.cmd.Wait()
	if serr != nil {
		return serr
	}
	return err
}
