// Package diffgate is the git diffgate command: a review gate that lets a staged
// change through only after a human approves it on a real terminal.
package diffgate

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/cmdline"
)

// CLI is git diffgate's command tree.
type CLI struct {
	cmdline.Globals `embed:""`

	Review     ReviewCmd             `cmd:"" default:"withargs" help:"Review the staged change and ask for APPROVE on the terminal (the default)."`
	Report     ReportCmd             `cmd:"" help:"Print the analysis of the staged change; never prompts. Exit 1 when files are flagged."`
	Install    InstallCmd            `cmd:"" help:"Install the hooks that put every commit through the gate."`
	Uninstall  UninstallCmd          `cmd:"" help:"Remove our hooks and put back the ones you had."`
	Status     StatusCmd             `cmd:"" help:"Show the hooks, and whether the staged change has an approval."`
	Verify     VerifyCmd             `cmd:"" help:"Check that every commit in a range carries an approval of its own tree (for CI). Exit 1 when one does not."`
	Completion cmdline.CompletionCmd `cmd:"" help:"Print the completion script for bash, zsh or fish (git diffgate and git-diffgate)."`
	Hook       HookCmd               `cmd:"" hidden:"" help:"Run a hook (the installed shims call this)."`
}

const description = `The review gate for changes written by agents and hurried humans. It measures the
staged change, flags files that were mostly rewritten, replaced or deleted, shows
what would be lost, and lets the change through only after a human types APPROVE
on the controlling terminal. Without a terminal, or with --auto, it fails closed.`

// Main runs git diffgate and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdline.Run(app(), args, stdin, stdout, stderr)
}

func app() cmdline.App {
	var cli CLI
	return cmdline.App{
		Prog: "git-diffgate", Usage: "git diffgate", Description: description,
		CLI: &cli, Globals: &cli.Globals,
		Direct: map[string]func(*cmdline.Env, []string) error{"hook": runHook},
	}
}
