package confine

import (
	"os"
	"os/signal"
	"syscall"
)

// OnTerminal shields git-tdd from the signals its terminal sends for input
// while a program it started runs there, in its process group (git tdd
// agent's agent): until release, quit, suspend and background reads and
// writes are caught and dropped here, as an interrupt already is (Run's
// context). The program controls the terminal's settings: with its quit
// character set to ESC, any answer of the terminal emulator to a query
// (ESC [ 6 n) would end git-tdd mid-session, and nothing would put back
// what git-tdd restores after it (the worktree's .git file). The program
// itself gets them as ever: a caught signal is the default again across
// exec.
func OnTerminal() (release func()) {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
