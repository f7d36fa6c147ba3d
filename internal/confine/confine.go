// Package confine starts the programs an agent controls (its command, and the
// tests, lint and setup commands it may have written), and git with the
// programs a repository's configuration makes it run, away from the human's
// terminal, and ends everything they started when they end. Each runs
// headless: in a session of its own, so without a controlling terminal
// (/dev/tty does not open, no keys can be pushed into the human's input),
// with its input a pipe or /dev/null and its output never the terminal.
// git-tdd and git-diffgate become child subreapers when they start, so
// nothing they start can leave their tree; when a confined program exits,
// every process it left is killed, whatever process group or session it
// moved to; and KillStrays, called before every question and every
// signature, kills whatever still runs. Start is the one place these programs
// start: whatever confines them further goes there.
package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

// Which processes are an agent's. Everything git-tdd starts that is not the
// human's own program runs confined, in a session of its own: an agent's
// programs, and git itself (which runs hooks, filters and other programs a
// repository's configuration names). No process can join a session it was
// not born in (setsid only makes new ones), and as git-tdd is a subreaper
// from its start (BecomeSubreaper), what any of them leaves when its parent
// dies becomes git-tdd's child, never init's. So after a confined program, a
// process below git-tdd outside its session that no running program holds is
// a leftover, and is killed; the ones in its session are the human's own
// programs (the pager, the editor, git signing a commit) and run on. Before a
// question or a signature (KillStrays) nothing of git-tdd's runs: every
// process below it is killed, in its session or not, but what the human's own
// program left running (an editor's server, a gpg-agent: Spare keeps them).
// git's maintenance (git gc --auto), which git detaches, is killed like any
// leftover, and runs again next time.

var (
	// starting is held shared from before a program starts until it is
	// registered, and exclusively while a sweep lists and kills processes and
	// while Spare lists what it may spare: neither sees a program that
	// started but is not yet registered (a sweep would kill it as a stray,
	// Spare would spare it), and programs start at once with one another.
	starting sync.RWMutex
	// sweeping is held across a sweep: one runs at a time.
	sweeping sync.Mutex
	mu       sync.Mutex // over running and spared
	// running is the programs started and not yet waited for, by pid; a
	// Wait removes its own only, as the pid, once reaped, may be a new one's
	running = map[int]*Proc{}
	spared  = map[key]bool{} // what the human's own programs left running
)

// key is one process: its pid and when it started (a pid is reused).
type key struct {
	pid   int
	start uint64
}

// Process is a process that was killed or could not be.
type Process struct {
	Pid  int
	Args []string // its command line, as it set it: untrusted text
}

func (p Process) String() string {
	return fmt.Sprintf("%d %s", p.Pid, strconv.Quote(strings.Join(p.Args, " ")))
}

// LeftError names the processes a confined program left that could not be
// killed (a program that changed its user: setuid).
type LeftError struct {
	Processes []Process
}

func (e *LeftError) Error() string {
	names := make([]string, len(e.Processes))
	for i, p := range e.Processes {
		names[i] = p.String()
	}
	return "a program an agent controls left processes that could not be killed: " + strings.Join(names, ", ")
}

// Proc is a confined program that was started.
type Proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the program has exited (it may not be reaped yet)
	mu     sync.Mutex    // over reaped: no signal goes to a pid that was reaped and may be reused
	reaped bool
}

// Start starts cmd confined. cmd's standard input is a pipe (an io.Reader that
// is not an *os.File) or nil, which is /dev/null; no file given to it may be a
// terminal; cmd.SysProcAttr is Start's. The caller must call Wait.
func Start(cmd *exec.Cmd) (*Proc, error) {
	if err := headless(cmd); err != nil {
		return nil, err
	}
	starting.RLock()
	defer starting.RUnlock()
	if err := BecomeSubreaper(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, exited: make(chan struct{})}
	mu.Lock()
	running[p.Pid()] = p
	mu.Unlock()
	go p.watch()
	return p, nil
}

// headless puts cmd in a session of its own, and refuses to give it the
// terminal as a file: a program without a controlling terminal can still read
// and write one it was handed.
func headless(cmd *exec.Cmd) error {
	if cmd.SysProcAttr != nil {
		return errors.New("confine: the caller set SysProcAttr")
	}
	files := []any{cmd.Stdin, cmd.Stdout, cmd.Stderr}
	for _, f := range cmd.ExtraFiles {
		files = append(files, f)
	}
	for _, f := range files {
		if f, ok := f.(*os.File); ok && f != nil && term.IsTerminal(int(f.Fd())) {
			return fmt.Errorf("confine: %s would get the terminal %s", cmd.Path, f.Name())
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

// Pid is the program's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Wait waits for the program to exit, kills every process it left, and then
// waits for its output to be copied; it returns what exec.Cmd.Wait returns,
// or an error naming a process it left that could not be killed.
func (p *Proc) Wait() error {
	err := p.wait()
	mu.Lock()
	if running[p.Pid()] == p {
		delete(running, p.Pid())
	}
	mu.Unlock()
	return err
}

// Stop ends the program: SIGTERM to its process group, SIGKILL after grace if
// it has not exited. Wait, called besides, kills the rest.
func (p *Proc) Stop(grace time.Duration) {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.signal(syscall.SIGKILL)
	}
}

func (p *Proc) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		syscall.Kill(-p.Pid(), sig)
	}
}

// KillStrays kills every process below git-tdd but what Spare kept, in its
// session or not, and returns them; the error names those that could not be
// killed. It is called where nothing of git-tdd's runs: before a question,
// and before a commit is signed (the passphrase is typed then), so that
// nothing but the human's own programs can read the terminal or draw on it.
func KillStrays() ([]Process, error) {
	return sweep(true)
}

// Spare runs the human's own program (an editor, or git signing a commit,
// on the terminal) and spares what it leaves running: an editor's server
// (emacs --daemon, a code window) or the gpg-agent that gpg starts is the
// human's, not an agent's. Nothing is spared while a confined program runs,
// which could have started it.
func Spare(run func() error) error {
	before := children()
	err := run()
	// no program starts while the children are listed: each listed is
	// registered if it is one
	starting.Lock()
	defer starting.Unlock()
	after := children()
	mu.Lock()
	defer mu.Unlock()
	if len(running) > 0 {
		return err
	}
	for k := range after {
		if !before[k] {
			spared[k] = true
		}
	}
	return err
}

// rounds bounds a sweep: processes that fork while they are killed are found
// again in the next round.
const rounds = 60

// sweep kills the processes below git-tdd that are left over: not spared,
// and, after a program, outside git-tdd's session and not a program still
// running (nor below one), and the kernel's children files list them; before
// a question (atQuestion) only the spared are kept, and every process's stat
// is read: the children files can miss a child while others come and go, and
// the question's sweep is the last. It returns the processes it found alive.
func sweep(atQuestion bool) ([]Process, error) {
	sweeping.Lock()
	defer sweeping.Unlock()
	var found []Process
	seen := map[int]bool{}
	for round := 0; ; round++ {
		left := sweepRound(atQuestion, seen, &found)
		if len(left) == 0 {
			return found, nil
		}
		if round == rounds {
			err := &LeftError{}
			for _, v := range left {
				err.Processes = append(err.Processes, Process{Pid: v.pid, Args: cmdline(v)})
			}
			return found, err
		}
		time.Sleep(min(time.Millisecond<<round, 20*time.Millisecond))
	}
}

// sweepRound lists the strays, with no program starting, kills those alive,
// reaps the dead that are git-tdd's, and returns what is not gone yet; found
// gets each process found alive, once (seen).
func sweepRound(atQuestion bool, seen map[int]bool, found *[]Process) []proc {
	starting.Lock()
	defer starting.Unlock()
	mu.Lock()
	defer mu.Unlock()
	// A zombie is gone once reaped, which a process whose other threads
	// still exit is not yet, and one whose parent is killed comes to git-tdd.
	var left []proc
	for _, v := range strays(atQuestion) {
		switch {
		case v.zombie && running[v.pid] != nil:
			// its Wait reaps it
		case v.zombie && v.ppid == os.Getpid():
			if !reap(v.pid) {
				left = append(left, v)
			}
		case v.zombie:
			left = append(left, v)
		default:
			left = append(left, v)
			if !seen[v.pid] {
				seen[v.pid] = true
				*found = append(*found, Process{Pid: v.pid, Args: cmdline(v)})
			}
			syscall.Kill(v.pid, syscall.SIGKILL)
		}
	}
	return left
}
