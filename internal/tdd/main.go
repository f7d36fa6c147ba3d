// Package tdd is the git tdd command: an issue-anchored TDD lifecycle in which git
// and the test runner, never an agent's claim, decide what may happen next.
package tdd

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/cmdline"
)

// CLI is git tdd's command tree.
type CLI struct {
	cmdline.Globals `embed:""`
}

const description = `An issue-anchored TDD lifecycle: a worktree per issue, a red gate that proves new
tests fail for the right reason, a green gate that proves the same tests pass and
were not weakened, and a merge that a human approves on the terminal.`

// Main runs git tdd and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdline.Run(app(), args, stdin, stdout, stderr)
}

func app() cmdline.App {
	var cli CLI
	return cmdline.App{Prog: "git-tdd", Usage: "git tdd", Description: description, CLI: &cli, Globals: &cli.Globals}
}
