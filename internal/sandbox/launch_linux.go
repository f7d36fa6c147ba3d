package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Launcher is a thread of this process that a policy confines, as the
// helper confines itself: a program it starts inherits the thread's Landlock
// domain, seccomp filters, no_new_privs and empty capabilities, and runs
// confined from its first instruction; the rest of git-tdd is not. It saves
// the helper's start (a process and a Go runtime of git-tdd's size: 4 ms,
// make bench) where git-tdd waits for a run, red's and green's tests.
//
// The thread is locked to its goroutine and never unlocked: Go never runs
// another goroutine on it, makes its new threads from a clean template
// thread, not from a locked one, and ends the thread when Close ends the
// goroutine. While it lives, a program it started shares its domain, and
// Landlock would let that program trace it, and so write git-tdd's memory:
// git-tdd is made not dumpable first, which only a holder of
// CAP_SYS_PTRACE passes, and a confined program holds no capability.
type Launcher struct {
	do   chan func()
	done chan struct{}
	once sync.Once
}

// Launcher confines a new thread to p, and returns once it is, or why it
// could not be (checked as Wrap checks, before any restriction).
func (p Policy) Launcher() (*Launcher, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	st, err := Probe()
	if err != nil {
		return nil, err
	}
	if err := st.Check(p); err != nil {
		return nil, err
	}
	if err := notDumpable(); err != nil {
		return nil, err
	}
	l := &Launcher{do: make(chan func()), done: make(chan struct{})}
	errc := make(chan error, 1)
	go l.serve(p, st.ABI, errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	return l, nil
}

// serve confines a thread of its own and runs what Start gives it there
// until Close. Never the main thread: its task is the process's leader, which
// others name when they check or signal git-tdd, and Go does not end it but
// parks it when its locked goroutine ends. When this goroutine has it, it is
// held, still free, until another goroutine has locked a thread of its own.
func (l *Launcher) serve(p Policy, abi int, errc chan<- error) {
	runtime.LockOSThread() // never unlocked once restricted: the thread ends with this goroutine
	if unix.Gettid() == unix.Getpid() {
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			l.confined(p, abi, errc)
		}()
		<-locked
		runtime.UnlockOSThread()
		return
	}
	l.confined(p, abi, errc)
}

// confined restricts the calling thread, locked, and runs what Start gives.
func (l *Launcher) confined(p Policy, abi int, errc chan<- error) {
	if err := restrict(p, abi, launcherThread(unix.Getpid(), unix.Gettid())...); err != nil {
		errc <- err
		return
	}
	errc <- nil
	for f := range l.do {
		f()
		l.done <- struct{}{}
	}
}

// Start starts cmd on the confined thread with start (confine.Start, or
// cmd.Start), its program looked up in the PATH of cmd's own environment, as
// the helper looks it up.
func (l *Launcher) Start(cmd *exec.Cmd, start func(*exec.Cmd) error) error {
	if len(cmd.Args) == 0 {
		return fmt.Errorf("sandbox: the command has no arguments")
	}
	path, err := lookPath(cmd.Args[0], cmd.Environ())
	if err != nil {
		return err
	}
	cmd.Path, cmd.Err = path, nil
	l.do <- func() { err = start(cmd) }
	<-l.done
	return err
}

// Close ends the confined thread. A program it started runs on.
func (l *Launcher) Close() {
	l.once.Do(func() { close(l.do) })
}

// notDumpable makes this process not dumpable: no process without
// CAP_SYS_PTRACE can trace it, read or write its memory, or take its files
// (ptrace, /proc/PID/mem, process_vm_writev, pidfd_getfd), not even one in the
// domain of its confined thread. Its programs are dumpable again once they
// execute.
func notDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: making git-tdd not dumpable: %w", err)
	}
	return nil
}
