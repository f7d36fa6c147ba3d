// Package tdd is the git tdd command: an issue-anchored TDD lifecycle in which git
// and the test runner, never an agent's claim, decide what may happen next.
package tdd

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/gocache"
	"github.com/git-tdd/git-tdd/internal/sandbox"
)

// CLI is git tdd's command tree.
type CLI struct {
	cmdline.Globals `embed:""`

	Start  StartCmd  `cmd:"" help:"Create the issue's branch and worktree, and print the worktree's path."`
	Status StatusCmd `cmd:"" help:"Show a workflow: phase, red, green, attempts, what to do next."`
	List   ListCmd   `cmd:"" help:"List every workflow."`
	Red    RedCmd    `cmd:"" help:"Prove that new tests fail by assertion; commit them as the red."`
	Green  GreenCmd  `cmd:"" help:"Prove that the red's tests pass and were not weakened; commit the implementation."`
	Lint   LintCmd   `cmd:"" help:"Run [lint] command in the worktree."`
	Merge  MergeCmd  `cmd:"" help:"Review the whole branch and merge it after APPROVE on the terminal."`
	Abort  AbortCmd  `cmd:"" help:"Remove the worktree and the branch, saving anything unmerged under refs/tdd/backup/."`
	Verify VerifyCmd `cmd:"" help:"Re-prove every git tdd merge of a range from its history: red at its red commit, green at the merge (for CI)."`
	Run    RunCmd    `cmd:"" help:"Drive the configured agent through the gated cycle: tests, red, code, green, lint, then a human's merge."`
	Issue  IssueCmd  `cmd:"" help:"Draft a GitHub issue from a brief: a drafter, your edit, a reviewer, your approval, then gh files it."`
	Agent  AgentCmd  `cmd:"" help:"Run an interactive agent (claude, codex, aider) in an issue's worktree, in the sandbox, on this terminal."`

	Write   WriteCmd   `cmd:"" help:"Write a file from standard input: small files at once, larger ones after a human chooses a strategy."`
	Patch   PatchCmd   `cmd:"" help:"Apply FIND/REPLACE blocks, unified diffs or Codex patches from standard input, all or nothing."`
	Context ContextCmd `cmd:"" help:"Check files for an agent's context (no secrets, size and token budgets) and print them."`
	Prompt  PromptCmd  `cmd:"" help:"Print an agent's instructions for one file: the whole file, or FIND/REPLACE blocks for a large one."`

	Completion cmdline.CompletionCmd `cmd:"" help:"Print the completion script for bash, zsh or fish (git tdd and git-tdd)."`
	Issues     IssuesCmd             `cmd:"" name:"__issues" hidden:"" help:"List the active workflows' issues, for completion."`
}

const description = `An issue-anchored TDD lifecycle: a worktree per issue, a red gate that proves new
tests fail for the right reason, a green gate that proves the same tests pass and
were not weakened, and a merge that a human approves on the terminal.`

// Main runs git tdd and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == sandbox.HelperCommand {
		// git-tdd started again to confine a program: not a command of the
		// tree, and nothing of git-tdd's (its subreaper flag, its signal
		// handlers) may reach the program it executes
		return sandbox.Helper(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == gocache.Command {
		// the go command of a confined test run asking for its build cache
		return gocache.Main(args[1:], stdin, stdout, stderr)
	}
	return cmdline.Run(app(), args, stdin, stdout, stderr)
}

func app() cmdline.App {
	var cli CLI
	return cmdline.App{Prog: "git-tdd", Usage: "git tdd", Description: description, CLI: &cli, Globals: &cli.Globals}
}
