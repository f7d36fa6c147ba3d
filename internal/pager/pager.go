// Package pager shows a long review through the user's pager on the terminal,
// the way git runs its own.
package pager

import (
	"errors"
	"fmt"

	"os"
	"os/exec"
	"strings"
	"syscall"
)

// ErrQuit means the pager exited before it read everything: the human quit it.
var ErrQuit = errors.New("the pager was quit before the end")

// Which is the pager to use for a review on a terminal rows lines high, from
// git's own choice (git var GIT_PAGER: GIT_PAGER, core.pager, PAGER, then
// less): "" prints straight through. None with --no-pager; none when git says
// "cat" or nothing, as git itself takes them; none on a terminal that reports
// no height, where there is no page to fill (a harness's pseudo-terminal, some
// editors' shells).
func Which(git string, noPager bool, rows int) string {
	git = strings.TrimSpace(git)
	if noPager || git == "" || git == "cat" || rows <= 0 {
		return ""
	}
	return git
}

// Pager is a running pager: what is written to it is shown on the terminal.
type Pager struct {
	cmd  *exec.Cmd
	in   *os.File
	quit bool
}

// Start runs command with its standard input a pipe that Write fills and its
// output the terminal. Like git, it runs the command through sh -c (a pager
// is a shell command line by git's own definition; this is the one command
// the toolkit gives a shell) and sets LESS=FRX and LV=-c unless they are set,
// so less quits at once when the text fits the screen, keeps colours and
// leaves the text on the screen.
func Start(command string, tty *os.File, environ []string) (*Pager, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, tty, tty
	cmd.Env = withDefault(withDefault(environ, "LESS", "FRX"), "LV", "-c")
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting the pager %q: %w", command, err)
	}
	pr.Close()
	return &Pager{cmd: cmd, in: pw}, nil
}

// Write sends text to the pager; once the pager is gone it fails with ErrQuit.
func (p *Pager) Write(b []byte) (int, error) {
	if p.quit {
		return 0, ErrQuit
	}
	n, err := p.in.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.quit = true
		return n, ErrQuit
	}
	return n, err
}

// Wait ends the input and waits until the human leaves the pager.
func (p *Pager) Wait() error {
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("the pager %q: %w", strings.Join(p.cmd.Args[2:], " "), err)
	}
	return nil
}

// withDefault sets key=value in environ unless key is set there (to anything,
// the empty string too: the user's choice).
func withDefault(environ []string, key, value string) []string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, key+"=") {
			return environ
		}
	}
	return append(environ[:len(environ):len(environ)], key+"="+value)
}
