// Package ttydriver runs a program on a new pseudo-terminal and answers its
// prompts like a person: each answer is typed only after its prompt has appeared.
// Tests use it; the toolkit never does.
package ttydriver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Step waits for Expect to appear in the output (since the previous answer) and
// then types Send.
type Step struct {
	Expect *regexp.Regexp
	Send   string
}

// Result is what a run on the terminal produced.
type Result struct {
	Output   []byte // everything written to the terminal
	ExitCode int
	Pending  []Step // steps whose prompt never appeared
}

var ansi = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r`)
})

// Plain strips colour codes and carriage returns.
func Plain(b []byte) []byte { return ansi().ReplaceAll(b, nil) }

// Run starts cmd in a new session whose controlling terminal is a fresh pty. Its
// stdout and stderr are the terminal; its stdin too, unless cmd.Stdin is set.
// Typeahead, when set, is written to the terminal as soon as the program starts,
// before any prompt: what a person (or an agent) types in advance.
func Run(cmd *exec.Cmd, typeahead string, steps []Step, timeout time.Duration) (*Result, error) {
	return RunSized(cmd, typeahead, steps, timeout, nil)
}

// RunSized is Run on a terminal of the given size; nil leaves it unset (0×0),
// as a fresh pseudo-terminal is.
func RunSized(cmd *exec.Cmd, typeahead string, steps []Step, timeout time.Duration, size *pty.Winsize) (*Result, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer ptmx.Close()
	if size != nil {
		if err := pty.Setsize(ptmx, size); err != nil {
			tty.Close()
			return nil, err
		}
	}
	ctty := 1 // the child's fd that is the terminal: stdout, or stdin when it is one
	if cmd.Stdin == nil {
		cmd.Stdin, ctty = tty, 0
	}
	cmd.Stdout, cmd.Stderr = tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
	if err := cmd.Start(); err != nil {
		tty.Close()
		return nil, err
	}
	tty.Close()
	if typeahead != "" {
		io.WriteString(ptmx, typeahead)
	}
	chunks := make(chan []byte)
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				close(chunks)
				return
			}
		}
	}()
	res := &Result{Pending: steps}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(timeout)
	mark := 0
	var werr error
	done := false
	for !done {
		select {
		case c, ok := <-chunks:
			if !ok {
				chunks = nil
				continue
			}
			res.Output = append(res.Output, c...)
			for len(res.Pending) > 0 && res.Pending[0].Expect.Match(Plain(res.Output[mark:])) {
				if _, err := io.WriteString(ptmx, res.Pending[0].Send); err != nil {
					return res, err
				}
				mark = len(res.Output)
				res.Pending = res.Pending[1:]
			}
		case werr = <-exited:
			done = true
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			return res, fmt.Errorf("timed out after %s on the terminal", timeout)
		}
	}
	drain(res, chunks)
	res.ExitCode = exitCode(werr)
	if res.ExitCode < 0 {
		return res, werr
	}
	return res, nil
}

// drain collects what the program wrote before it exited.
func drain(res *Result, chunks chan []byte) {
	if chunks == nil {
		return
	}
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return
			}
			res.Output = append(res.Output, c...)
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Main is the ttyrun command for test scripts:
//
//	ttyrun [-raw] [-stdin-null | -stdin FILE] [-timeout 60s] [-typeahead TEXT] [-size ROWSxCOLS] [EXPECT SEND]... -- PROGRAM [ARG...]
//
// -size gives the terminal a size, as a terminal emulator does; without it the
// terminal reports none.
// SEND may use \n, \t and \x04 escapes. It prints the terminal transcript on
// stdout (without colour codes unless -raw) and exits with the program's exit code.
func Main() int {
	args := os.Args[1:]
	timeout, stdinNull, raw, typeahead, stdinFile := 60*time.Second, false, false, "", ""
	var size *pty.Winsize
	for len(args) > 0 && (args[0] == "-stdin-null" || args[0] == "-stdin" || args[0] == "-timeout" || args[0] == "-raw" || args[0] == "-typeahead" || args[0] == "-size") {
		switch args[0] {
		case "-size":
			size = &pty.Winsize{}
			if _, err := fmt.Sscanf(args[1], "%dx%d", &size.Rows, &size.Cols); err != nil {
				fmt.Fprintln(os.Stderr, "ttyrun: -size ROWSxCOLS:", err)
				return 125
			}
			args = args[2:]
			continue
		case "-stdin":
			stdinFile, args = args[1], args[2:]
			continue
		case "-typeahead":
			typeahead, args = unescape(args[1]), args[2:]
			continue
		case "-stdin-null":
			stdinNull, args = true, args[1:]
			continue
		case "-raw":
			raw, args = true, args[1:]
			continue
		}
		d, err := time.ParseDuration(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "ttyrun:", err)
			return 125
		}
		timeout, args = d, args[2:]
	}
	var steps []Step
	for len(args) >= 2 && args[0] != "--" {
		re, err := regexp.Compile(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "ttyrun:", err)
			return 125
		}
		steps = append(steps, Step{Expect: re, Send: unescape(args[1])})
		args = args[2:]
	}
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "usage: ttyrun [-raw] [-stdin-null | -stdin FILE] [-timeout D] [-typeahead TEXT] [-size ROWSxCOLS] [EXPECT SEND]... -- PROGRAM [ARG...]")
		return 125
	}
	cmd := exec.Command(args[1], args[2:]...)
	if stdinNull {
		cmd.Stdin = bytes.NewReader(nil)
	}
	if stdinFile != "" {
		f, err := os.Open(stdinFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ttyrun:", err)
			return 125
		}
		defer f.Close()
		cmd.Stdin = f
	}
	res, err := RunSized(cmd, typeahead, steps, timeout, size)
	if res != nil && raw {
		os.Stdout.Write(res.Output)
	} else if res != nil {
		os.Stdout.Write(Plain(res.Output))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ttyrun:", err)
		return 124
	}
	if len(res.Pending) > 0 {
		fmt.Fprintf(os.Stderr, "ttyrun: the prompt %q never appeared\n", res.Pending[0].Expect)
		return 125
	}
	return res.ExitCode
}

func unescape(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 < len(s) {
				var c byte
				fmt.Sscanf(s[i+1:i+3], "%02x", &c)
				b.WriteByte(c)
				i += 2
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
