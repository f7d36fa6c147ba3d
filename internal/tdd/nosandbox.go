package tdd

import "github.com/git-tdd/git-tdd/internal/lifecycle"

// noSandbox is --no-sandbox, for the commands that run the repository's
// tests, lint or setup. Only the human's command line gives it: no
// environment variable or file, which an agent could write, does.
type noSandbox struct {
	NoSandbox bool `name:"no-sandbox" help:"Run the tests, lint and setup commands unconfined, with your rights, where this machine cannot confine them (a warning, and the audit log records it)."`
}

// apply makes l run unconfined when the human asked, saying so.
func (n noSandbox) apply(l *lifecycle.Env, command, issue string) {
	if n.NoSandbox {
		l.Unconfined(command, issue)
	}
}
