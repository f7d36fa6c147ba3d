package confine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The test binary is also the programs these tests start: CONFINE_TEST says
// which.
func TestMain(m *testing.M) {
	switch os.Getenv("CONFINE_TEST") {
	case "probe":
		probe()
	case "on-a-terminal":
		onATerminal()
	case "leave":
		leave()
	case "sleep":
		time.Sleep(time.Minute)
	case "nap":
		time.Sleep(5 * time.Millisecond)
	default:
		os.Exit(m.Run())
	}
	os.Exit(0)
}

// probed is what a confined program finds about itself.
type probed struct {
	TTY   string // what opening /dev/tty gave: "ok" or the error
	Pid   int
	Sid   int
	Stdin string // what fd 0 is
	Input string // what it read there
}

func probe() {
	p := probed{TTY: "ok", Pid: os.Getpid()}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		p.TTY = err.Error()
	} else {
		f.Close()
	}
	p.Sid, _ = unix.Getsid(0)
	p.Stdin, _ = os.Readlink("/proc/self/fd/0")
	in, _ := io.ReadAll(os.Stdin)
	p.Input = string(in)
	json.NewEncoder(os.Stdout).Encode(p)
}

// onATerminal runs where /dev/tty is the terminal the test made, and reports
// what confined programs find there, on fd 3.
func onATerminal() {
	report := os.NewFile(3, "report")
	enc := json.NewEncoder(report)
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		enc.Encode(map[string]string{"error": "the helper has no terminal: " + err.Error()})
		return
	}
	defer tty.Close()
	sid, _ := unix.Getsid(0)
	enc.Encode(map[string]int{"sid": sid})
	for _, stdin := range []io.Reader{nil, strings.NewReader("the prompt")} {
		var out bytes.Buffer
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "CONFINE_TEST=probe")
		cmd.Stdin, cmd.Stdout = stdin, &out
		p, err := Start(cmd)
		if err == nil {
			err = p.Wait()
		}
		if err != nil {
			enc.Encode(map[string]string{"error": err.Error()})
			return
		}
		report.Write(out.Bytes())
	}
	// the terminal is never handed over, as a standard file or an extra one
	for _, give := range []func(*exec.Cmd){
		func(c *exec.Cmd) { c.Stdin = tty },
		func(c *exec.Cmd) { c.Stdout = tty },
		func(c *exec.Cmd) { c.Stderr = os.Stdin },
		func(c *exec.Cmd) { c.ExtraFiles = []*os.File{tty} },
	} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "CONFINE_TEST=probe")
		give(cmd)
		if _, err := Start(cmd); err == nil {
			enc.Encode(map[string]string{"error": "Start gave a confined program the terminal"})
			return
		}
	}
}

// On a terminal that is the controlling terminal of the program that starts
// it, a confined program has none: /dev/tty does not open (ENXIO), it leads a
// session of its own, and its standard input is /dev/null or the prompt.
func TestHeadlessOnATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	go io.Copy(io.Discard, ptmx)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CONFINE_TEST=on-a-terminal")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	w.Close()
	out, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var helper struct{ Sid int }
	if err := dec.Decode(&helper); err != nil || helper.Sid == 0 {
		t.Fatalf("helper said %s (%v)", out, err)
	}
	for _, want := range []struct{ stdin, input string }{{"/dev/null", ""}, {"pipe:", "the prompt"}} {
		var p probed
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("helper said %s (%v)", out, err)
		}
		if !strings.Contains(p.TTY, "no such device or address") {
			t.Errorf("opening /dev/tty: %q, want ENXIO", p.TTY)
		}
		if p.Sid != p.Pid || p.Sid == helper.Sid {
			t.Errorf("session %d (pid %d), the starter's %d: want a session of its own", p.Sid, p.Pid, helper.Sid)
		}
		if !strings.HasPrefix(p.Stdin, want.stdin) || p.Input != want.input {
			t.Errorf("stdin %s with %q, want %s with %q", p.Stdin, p.Input, want.stdin, want.input)
		}
	}
	var rest map[string]string
	if err := dec.Decode(&rest); err != io.EOF {
		t.Errorf("helper said %v (%v)", rest, err)
	}
}

// leave starts a process that changes its process group or session (how
// says LEAVE: setsid or setpgid), prints its pid, and exits without waiting;
// LEAVE=double leaves a daemon as a shell's "(setsid cmd &)" does: a child
// starts it in a session of its own and exits, and the daemon is an orphan
// while this program still runs.
func leave() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CONFINE_TEST=sleep")
	switch os.Getenv("LEAVE") {
	case "setsid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	case "setpgid":
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	case "double":
		cmd.Env = append(os.Environ(), "CONFINE_TEST=leave", "LEAVE=setsid", "LEAVE_WAIT=")
		cmd.Stdout = os.Stdout
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
	if os.Getenv("LEAVE_WAIT") != "" {
		time.Sleep(time.Minute)
	}
}

// output is a program's output, read while it runs.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// wait waits until the program printed something: what it starts runs.
func (o *output) wait() {
	for start := time.Now(); o.String() == "" && time.Since(start) < 10*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
}

func startLeaving(t *testing.T, how string, env ...string) (*Proc, *output) {
	t.Helper()
	out := &output{}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "CONFINE_TEST=leave", "LEAVE="+how), env...)
	cmd.Stdout = out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

func dead(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// What a program left is dead when Wait returns, whatever group or session it
// moved to, and it is not left a zombie.
func TestWaitKillsWhatItLeft(t *testing.T) {
	for _, how := range []string{"setsid", "setpgid", "double", "stay"} {
		t.Run(how, func(t *testing.T) {
			p, out := startLeaving(t, how)
			if err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
			if err != nil {
				t.Fatalf("output %q", out)
			}
			if !dead(pid) {
				t.Errorf("process %d is alive", pid)
			}
		})
	}
}

// Stop ends a program that does not exit, and Wait kills what it left.
func TestStop(t *testing.T) {
	p, out := startLeaving(t, "setsid", "LEAVE_WAIT=1")
	out.wait()
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	p.Stop(time.Second)
	if err := <-exited; err == nil {
		t.Fatal("a stopped program exited 0")
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	if pid == 0 || !dead(pid) {
		t.Errorf("process %q is alive", out)
	}
}

// startStray starts, outside confine, a child in a session of its own (what
// a confined program's orphan looks like), or in this one's (what a program
// git ran unconfined would leave).
func startStray(t *testing.T, setsid bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-stray-marker")
	cmd.Env = append(os.Environ(), "CONFINE_TEST=sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// KillStrays names and kills every process below this one, in its session or
// not, but what the human's own program left (Spare), in its session or not.
func TestKillStrays(t *testing.T) {
	var spared []*exec.Cmd
	err := Spare(func() error {
		spared = []*exec.Cmd{startStray(t, true), startStray(t, false)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	strays := []*exec.Cmd{startStray(t, true), startStray(t, false)}
	killed, err := KillStrays()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, k := range killed {
		if k.Args[len(k.Args)-1] != "-stray-marker" {
			t.Errorf("killed %v", k)
		}
		pids = append(pids, k.Pid)
	}
	slices.Sort(pids)
	want := []int{strays[0].Process.Pid, strays[1].Process.Pid}
	slices.Sort(want)
	if !slices.Equal(pids, want) {
		t.Fatalf("killed %v, want %v", killed, want)
	}
	for _, c := range strays {
		if err := c.Wait(); err == nil {
			t.Error("a stray exited 0")
		}
	}
	for _, c := range spared {
		if dead(c.Process.Pid) {
			t.Errorf("%v was killed", c.Args)
		}
	}
	if killed, err := KillStrays(); len(killed) != 0 || err != nil {
		t.Errorf("again: %v, %v", killed, err)
	}
}

// After a confined program, what runs in this process's session (the pager,
// git signing) is kept: only a question's sweep kills it.
func TestWaitKeepsTheSession(t *testing.T) {
	ours := startStray(t, false)
	p, _ := startLeaving(t, "setsid")
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if dead(ours.Process.Pid) {
		t.Fatal("ending a confined program killed a process of this session")
	}
	if killed, err := KillStrays(); len(killed) != 1 || err != nil {
		t.Errorf("at a question: killed %v, %v", killed, err)
	}
}

// A program that runs is not an other's stray when it ends, but is one at a
// question.
func TestKillStraysRunning(t *testing.T) {
	first, out := startLeaving(t, "stay", "LEAVE_WAIT=1")
	out.wait()
	second, _ := startLeaving(t, "stay")
	if err := second.Wait(); err != nil {
		t.Fatal(err)
	}
	if dead(first.Pid()) {
		t.Fatal("ending one program killed another that runs")
	}
	killed, err := KillStrays()
	if err != nil {
		t.Fatal(err)
	}
	if len(killed) != 2 {
		t.Errorf("killed %v, want the program and its child", killed)
	}
	if err := first.Wait(); err == nil {
		t.Error("killed, it exited 0")
	}
}

func TestParseStat(t *testing.T) {
	p, ok := parseStat("42 (a) b (c)) S 7 42 40 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 12345 1000 100 18446744073709551615")
	if !ok || p.pid != 42 || p.ppid != 7 || p.sid != 40 || p.start != 12345 || p.comm != "a) b (c)" || p.zombie {
		t.Errorf("%+v %v", p, ok)
	}
	if _, ok := parseStat("42 (x) S 1"); ok {
		t.Error("a short stat parsed")
	}
}

// The children files and the scan of every process agree on this process's
// children, each forked by a thread of its own: a child is listed in the
// children file of the thread that forked it, or, when that thread ended, of
// another.
func TestChildrenAgree(t *testing.T) {
	defer holdThreads(4)()
	var pids []int
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 4 {
		wg.Go(func() {
			runtime.LockOSThread() // the thread ends with the goroutine
			c := exec.Command("sleep", "5")
			if err := c.Start(); err != nil {
				t.Error(err)
				return
			}
			t.Cleanup(func() { c.Process.Kill(); c.Wait() })
			mu.Lock()
			pids = append(pids, c.Process.Pid)
			mu.Unlock()
		})
	}
	wg.Wait()
	// the threads end after their goroutines, and a child moves to another
	// thread's file when its thread ends: while one ends, it may be in
	// neither (why the sweep before a question scans every process)
	var files, scan []int
	for range 100 {
		files, scan = childrenFiles(os.Getpid()), scanChildren()[os.Getpid()]
		slices.Sort(files)
		slices.Sort(scan)
		if slices.Equal(files, scan) && len(files) >= len(pids) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, pid := range pids {
		if !slices.Contains(files, pid) {
			t.Errorf("children files %v, want %d among them", files, pid)
		}
	}
	if !slices.Equal(files, scan) {
		t.Errorf("children files %v, scan %v", files, scan)
	}
}

// Many goroutines start and wait programs at once, while others' programs
// leave daemons (in a session of their own, a process group of their own,
// or double-forked): every process a program left is dead when its Wait
// returns, and no program another goroutine started, nor what it runs, is
// ever killed as a stray.
func TestConcurrentStartsAndLeftovers(t *testing.T) {
	long, out := startLeaving(t, "stay", "LEAVE_WAIT=1")
	out.wait()
	longChild, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	hows := []string{"setsid", "setpgid", "double"}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 8 {
				if (g+i)%2 == 0 {
					cmd := exec.Command(os.Args[0])
					cmd.Env = append(os.Environ(), "CONFINE_TEST=nap")
					p, err := Start(cmd)
					if err != nil {
						t.Error(err)
						return
					}
					if err := p.Wait(); err != nil {
						t.Errorf("a program that leaves nothing: %v", err)
					}
					continue
				}
				how := hows[(g+i)/2%len(hows)]
				out := &output{}
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), "CONFINE_TEST=leave", "LEAVE="+how)
				cmd.Stdout = out
				p, err := Start(cmd)
				if err != nil {
					t.Error(err)
					return
				}
				if err := p.Wait(); err != nil {
					t.Errorf("%s: %v", how, err)
				}
				pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
				if err != nil {
					t.Errorf("%s: output %q", how, out)
				} else if !dead(pid) {
					t.Errorf("%s: process %d it left is alive", how, pid)
				}
			}
		})
	}
	wg.Wait()
	if dead(long.Pid()) || longChild == 0 || dead(longChild) {
		t.Errorf("a program that runs (%d) or its child (%q) was killed", long.Pid(), out)
	}
	long.Stop(time.Second)
	long.Wait()
	if !dead(longChild) {
		t.Errorf("process %d, left by a stopped program, is alive", longChild)
	}
}

// Spare, called while another goroutine starts programs one after another,
// spares none of them: a program that started but is not yet registered,
// while none is, is not the human's.
func TestSpareWhileProgramsStart(t *testing.T) {
	stop := make(chan struct{})
	var pids sync.Map
	var wg sync.WaitGroup
	for range 1 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), "CONFINE_TEST=nap")
				p, err := Start(cmd)
				if err != nil {
					t.Error(err)
					return
				}
				pids.Store(p.Pid(), true)
				if err := p.Wait(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for start := time.Now(); time.Since(start) < time.Second; {
		Spare(func() error { return nil })
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for k := range spared {
		if _, ok := pids.Load(k.pid); ok {
			t.Errorf("a confined program (%d) was spared", k.pid)
		}
		delete(spared, k)
	}
}

// Wait unregisters its own program only: once reaped, its pid may already be
// a new program's, which must stay registered (a sweep would kill it).
func TestWaitUnregistersItsOwn(t *testing.T) {
	p, err := Start(exec.Command("true"))
	if err != nil {
		t.Fatal(err)
	}
	next := &Proc{}
	mu.Lock()
	running[p.Pid()] = next // as if the pid were reused as soon as reaped
	mu.Unlock()
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if running[p.Pid()] != next {
		t.Error("Wait unregistered the program that has its pid now")
	}
	delete(running, p.Pid())
}
