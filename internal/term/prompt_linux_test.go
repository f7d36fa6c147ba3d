package term

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// A process a program an agent controls left running (outside this process's
// session) is named, escaped, and killed before a question is asked.
func TestNoQuestionWhileAStrayRuns(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	stray := &exec.Cmd{Path: sleep, Args: []string{"paint\x1b[2J", "60"}, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stray.Process.Kill(); stray.Wait() }()
	pid := stray.Process.Pid
	aliveAtQuestion := make(chan bool, 1)
	go func() {
		var seen []byte
		buf := make([]byte, 256)
		for !bytes.Contains(seen, []byte("Proceed?")) {
			n, err := ptmx.Read(buf)
			if err != nil {
				return
			}
			seen = append(seen, buf[:n]...)
		}
		aliveAtQuestion <- syscall.Kill(pid, 0) == nil
		ptmx.Write([]byte("yes\n"))
	}()
	var warn bytes.Buffer
	q := &TTY{f: tty, warn: &warn}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ans, err := q.Choose(ctx, "Proceed?", []Choice{{Word: "yes"}})
	if err != nil || ans != "yes" {
		t.Fatalf("answer %q, %v", ans, err)
	}
	if <-aliveAtQuestion {
		t.Error("the stray was alive when the question was asked")
	}
	want := fmt.Sprintf(`warning: killed process %d ("paint\033[2J" 60), left running by a program an agent controls: anything it drew on the screen is not this command's`, pid)
	if !strings.Contains(warn.String(), want) || strings.Contains(warn.String(), "\x1b") {
		t.Errorf("warned %q, want %q", warn.String(), want)
	}
}
