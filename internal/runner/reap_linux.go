package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the parent of any orphan the tests leave,
// even one that started its own session, so that killDescendants finds it.
func becomeSubreaper() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// killDescendants kills every process below this one and reaps it. The runner
// calls it when the test command is gone and nothing else of ours runs.
func killDescendants() {
	for i := 0; i < 10; i++ {
		pids := descendants(os.Getpid())
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range pids {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		// Reap the children of ours that died; grandchildren were reparented to us.
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}

// descendants lists the processes below root: from each process's children
// files (/proc/PID/task/TID/children), and when the kernel has none, from a
// scan of every process's stat, which costs some 3 ms on every test run.
func descendants(root int) []int {
	if out, ok := childrenTree(root); ok {
		return out
	}
	return scanDescendants(root)
}

// childrenTree walks the children files down from root; ok is false when the
// kernel does not provide them.
func childrenTree(root int) ([]int, bool) {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		files, err := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*/children")
		if err != nil || (p == root && len(files) == 0) {
			return nil, false
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue // the task ended
			}
			for _, field := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(field); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out, true
}

// scanDescendants lists the processes below root from every process's stat.
func scanDescendants(root int) []int {
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range dirs {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid …": comm may hold spaces and parentheses
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		pid, err1 := strconv.Atoi(strings.Fields(s)[0])
		if len(f) < 2 || err1 != nil || f[0] == "Z" {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
