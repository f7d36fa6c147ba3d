package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/git-tdd/git-tdd/internal/confine"
	"golang.org/x/sys/unix"
)

// superviseAsABI5 loads what a helper confined at ABI 5 loads for its
// parent (the test, playing git-tdd): its guards, then the supervising
// program, whose listener goes to the parent over fd 3.
func superviseAsABI5() error {
	return loadAsHelper(guards(5), true) // git-tdd is the parent
}

// trySignalOwnGroup is `git tdd agent`'s program, which runs in git-tdd's
// process group (runInteractive: Ctrl-C reaches both): kill(0, sig) names
// the caller's own group, which is git-tdd's. SIGWINCH stands for SIGKILL or
// SIGSTOP (its default is to be ignored, by the go command above the test
// too); the program ignores it itself.
func trySignalOwnGroup() error {
	signal.Ignore(syscall.SIGWINCH)
	if err := superviseAsABI5(); err != nil {
		return err
	}
	res := "ok"
	if err := syscall.Kill(0, syscall.SIGWINCH); err != nil {
		res = unix.ErrnoName(err.(syscall.Errno))
	}
	fmt.Printf("kill-own-group=%s ", res)
	return nil
}

// Before ABI 6, `git tdd agent` runs the agent in git-tdd's own process
// group (lifecycle.runInteractive gives it no SysProcAttr, so that Ctrl-C
// reaches the agent), and the guards and the supervisor refuse kill(-pgid)
// but let kill(0) through as "the program's own group": for the agent that
// group is git-tdd's, so `kill -KILL 0` (or -STOP) from the agent kills or
// stops git-tdd mid-session and leaves the worktree's .git file as the agent
// rewrote it (box.Close never runs). Here the test is git-tdd, and its
// child, in its group as runInteractive's is, the agent.
func TestSupervisorRefusesKillZeroInGitTddsGroup(t *testing.T) {
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGWINCH)
	defer signal.Stop(got)
	sup, end, err := newSupervisor()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "signal-own-group")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_DO=1")
	cmd.ExtraFiles = []*os.File{end} // no SysProcAttr: git-tdd's group, as runInteractive
	out, err := cmd.CombinedOutput()
	end.Close()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sup.Wait()
	select {
	case <-got:
		t.Errorf("git-tdd got the signal its program sent to its own group (kill 0): %s", out)
	case <-time.After(time.Second):
	}
	if !strings.Contains(string(out), "kill-own-group=EPERM ") {
		t.Errorf("want kill-own-group=EPERM (the group is git-tdd's) in %s", out)
	}
}

// tryInteractiveGitTdd plays git-tdd running `git tdd agent`
// (runInteractive): on its terminal, the agent in its process group with
// its standard files, a supervisor for its signals; it says whether it is
// still there once the agent has exited.
func tryInteractiveGitTdd() error {
	sup, end, err := newSupervisor()
	if err != nil {
		return err
	}
	cmd := exec.Command(os.Args[0], "terminal-quit")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_DO=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{end}
	release := confine.OnTerminal() // as runInteractive
	err = cmd.Run()
	release()
	end.Close()
	sup.Wait()
	if err != nil {
		return err
	}
	fmt.Print("git-tdd-survived ")
	return nil
}

// tryTerminalQuit is the agent: under the guards and the supervisor, it
// makes ESC the terminal's quit character and asks the terminal where its
// cursor is (ESC [ 6 n); the terminal's answer (ESC [ row ; col R) is input,
// whose ESC the line discipline turns into SIGQUIT for the terminal's
// foreground process group: git-tdd's, which Go's runtime ends (exit 2, its
// goroutines dumped). No kill(2) is made: no seccomp guard sees it.
func tryTerminalQuit() error {
	signal.Ignore(syscall.SIGQUIT) // the agent survives its own trick
	if err := superviseAsABI5(); err != nil {
		return err
	}
	tio, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Lflag |= unix.ISIG
	tio.Cc[unix.VQUIT] = 0x1b
	if err := unix.IoctlSetTermios(0, unix.TCSETS, tio); err != nil {
		return err
	}
	os.Stdout.WriteString("\x1b[6n")
	time.Sleep(time.Second) // the terminal answers
	return nil
}

// Before and after ABI 6 alike: `git tdd agent` gives the agent the human's
// terminal, in git-tdd's process group, its foreground group. Landlock's
// signal scope and the seccomp guards see signals a process sends, not those
// the terminal's line discipline sends for input: the agent sets the quit
// character to ESC and writes a cursor-position query, which every terminal
// emulator answers with input starting with ESC. git-tdd gets SIGQUIT and
// dies mid-session, the worktree's .git file left as the agent wrote it
// (box.Close never runs). (Likewise VSUSP: SIGTSTP stops it.) Here the test
// is the terminal emulator, its child git-tdd, and the grandchild the agent.
func TestAgentCannotQuitGitTddThroughTheTerminal(t *testing.T) {
	cmd := exec.Command(os.Args[0], "interactive-git-tdd")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_DO=1")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out strings.Builder
	buf := make([]byte, 4096)
	answered := false
	for {
		n, err := ptmx.Read(buf)
		out.Write(buf[:n])
		if !answered && strings.Contains(out.String(), "\x1b[6n") {
			ptmx.Write([]byte("\x1b[12;1R")) // as a terminal emulator answers
			answered = true
		}
		if err != nil {
			break // EIO: the last process holding the terminal exited
		}
	}
	werr := cmd.Wait()
	if !answered {
		t.Fatalf("the agent asked nothing: %v: %q", werr, out.String())
	}
	if werr != nil || !strings.Contains(out.String(), "git-tdd-survived") {
		head := out.String()
		if len(head) > 300 {
			head = head[:300]
		}
		t.Errorf("git-tdd ended while its agent ran: %v: %q", werr, head)
	}
}
