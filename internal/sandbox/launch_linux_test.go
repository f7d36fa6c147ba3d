package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/git-tdd/git-tdd/internal/confine"
)

// launched runs argv under l in dir as the runner does (Launcher.Start with
// confine.Start); "self" is this test binary.
func (r repo) launched(t *testing.T, l *Launcher, dir string, argv ...string) outcome {
	t.Helper()
	if argv[0] == "self" {
		argv[0] = os.Args[0]
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, r.env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	var proc *confine.Proc
	err := l.Start(cmd, func(cmd *exec.Cmd) (err error) {
		proc, err = confine.Start(cmd)
		return err
	})
	if err != nil {
		return outcome{refused: err, code: -1}
	}
	err = proc.Wait()
	o := outcome{out: strings.TrimSpace(out.String()), stderr: strings.TrimSpace(stderr.String())}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}

// threadID is the confined thread's own id.
func (l *Launcher) threadID() int {
	var tid int
	l.do <- func() { tid = unix.Gettid() }
	<-l.done
	return tid
}

// While the confined thread lives, a program it started is in its Landlock
// domain, and Landlock lets a task trace one of its own domain: through the
// thread, the program could read and write git-tdd's memory (one address
// space), its environment, its files. git-tdd is not dumpable, so that only
// CAP_SYS_PTRACE passes, which no confined program holds. The control shows
// the hole that closes: dumpable, the same program reads the thread's
// memory.
func TestLauncherIsNotTraced(t *testing.T) {
	r := newRepo(t)
	l, err := r.agentPolicy(t, nil).Launcher()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pid := os.Getpid()
	if l.threadID() == pid {
		t.Fatal("the confined thread is the main thread")
	}
	tid := strconv.Itoa(l.threadID())
	attacks := []struct {
		name string
		argv []string
		want string
	}{
		{"read the thread's memory", []string{"self", "vmread", tid}, "operation not permitted"},
		{"trace the thread", []string{"self", "ptrace", tid}, "operation not permitted"},
		{"read the thread's environment", []string{"self", "read", fmt.Sprintf("/proc/%d/task/%s/environ", pid, tid)}, "permission denied"},
		{"read git-tdd's memory", []string{"self", "vmread", strconv.Itoa(pid)}, "operation not permitted"},
	}
	for _, tc := range attacks {
		t.Run(tc.name, func(t *testing.T) {
			o := r.launched(t, l, r.worktree, tc.argv...)
			if o.code != 1 || !strings.Contains(o.out, tc.want) {
				t.Errorf("%v, want %q", o, tc.want)
			}
		})
	}
	t.Run("control: dumpable, the thread's memory is read", func(t *testing.T) {
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		defer notDumpable()
		if o := r.launched(t, l, r.worktree, "self", "vmread", tid); !strings.Contains(o.out, "bad address") {
			t.Errorf("%v, want the read let through to the address (EFAULT)", o)
		}
		// the process as a whole is outside the domain: refused either way
		if o := r.launched(t, l, r.worktree, "self", "vmread", strconv.Itoa(pid)); !strings.Contains(o.out, "operation not permitted") {
			t.Errorf("%v, want Landlock's refusal", o)
		}
	})
}

// A confined thread is git-tdd's only restricted one, and it ends with
// Close: once launchers are closed, no thread of the process, the main one
// included, has no_new_privs, which every restriction comes with.
func TestLauncherLeavesTheRestFree(t *testing.T) {
	r := newRepo(t)
	p := r.agentPolicy(t, nil)
	for i := 0; i < 30; i++ {
		l, err := p.Launcher()
		if err != nil {
			t.Fatal(err)
		}
		if o := r.launched(t, l, r.worktree, "true"); o.code != 0 || o.refused != nil {
			t.Fatal(o)
		}
		l.Close()
	}
	// a thread ends soon after its goroutine: wait for it
	deadline := time.Now().Add(5 * time.Second)
	for {
		restricted := restrictedThreads(t)
		if len(restricted) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads with no_new_privs: %v (the main thread is %d)", restricted, os.Getpid())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// restrictedThreads are this process's threads with no_new_privs set.
func restrictedThreads(t *testing.T) []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, task := range tasks {
		status, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // ended meanwhile
		}
		if strings.Contains(string(status), "\nNoNewPrivs:\t1\n") {
			tid, _ := strconv.Atoi(task.Name())
			out = append(out, tid)
		}
	}
	return out
}

// BenchmarkLaunchedTrue: true, confined from a thread (the policy built and
// applied each time, as red does), against BenchmarkConfinedTrue's helper.
func BenchmarkLaunchedTrue(b *testing.B) {
	r := newRepo(b)
	p := r.agentPolicy(b, nil)
	for b.Loop() {
		l, err := p.Launcher()
		if err != nil {
			b.Fatal(err)
		}
		var proc *confine.Proc
		err = l.Start(exec.Command("true"), func(cmd *exec.Cmd) (err error) {
			proc, err = confine.Start(cmd)
			return err
		})
		l.Close()
		if err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// While the confined thread lives, a program it started is in its Landlock
// domain, where Landlock's signal scope lets it signal the thread: a signal
// to one thread is the whole process's (SIGKILL ends git-tdd, SIGSTOP
// freezes it, and its [test] timeout with it). The thread outlives the
// program's start by as long as its goroutine waits to be scheduled: a
// static program started by "sh tests/run.sh", a [test] command an agent's
// script runs, signalled git-tdd in 5 of 20 red runs (SIGKILL: exit 137 in 3
// of 20). Killing git-tdd as a whole (kill) is refused, as it was from the
// helper.
func TestLauncherIsNotSignalled(t *testing.T) {
	r := newRepo(t)
	l, err := r.agentPolicy(t, nil).Launcher()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pid, tid := strconv.Itoa(os.Getpid()), strconv.Itoa(l.threadID())
	if o := r.launched(t, l, r.worktree, "self", "kill", pid); o.code != 1 || !strings.Contains(o.out, "operation not permitted") {
		t.Errorf("control, kill git-tdd: %v, want Landlock's refusal", o)
	}
	if o := r.launched(t, l, r.worktree, "self", "tgkill", pid, tid); o.code != 1 || !strings.Contains(o.out, "operation not permitted") {
		t.Errorf("signal the confined thread: %v, want it refused", o)
	}
}

// A confined program runs as git-tdd's user, and prlimit(2) asks nothing
// more of it than that (Landlock has no hook for it, the seccomp filter lets
// it through): a test lowers git-tdd's RLIMIT_FSIZE, so that git-tdd's next
// write (git commit-tree: a red's commit) fails, or its RLIMIT_NOFILE, or
// the hard limits of the human's shell above git-tdd, which the human then
// cannot raise again. Whatever the carrier.
func TestConfinedCannotSetGitTddLimits(t *testing.T) {
	eachCarrier(t, func(t *testing.T, r repo) {
		o := r.confined(t, r.agentPolicy(t, nil), r.worktree, "self", "prlimit", strconv.Itoa(os.Getpid()))
		if o.code != 1 || !strings.Contains(o.out, "operation not permitted") {
			t.Errorf("set git-tdd's RLIMIT_CORE: %v, want it refused", o)
		}
	})
}
