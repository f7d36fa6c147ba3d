package tdd

import (
	"github.com/alecthomas/kong"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/completion"
)

// CompletionCmd prints a shell's completion script.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

// Run writes the script, generated from the command tree.
func (c *CompletionCmd) Run(env *cmdline.Env, k *kong.Context) error {
	return completion.Write(env.Stdout, c.Shell, k.Model, completion.Spec{Prog: "git-tdd", Git: "tdd", Issues: "__issues"})
}

// IssuesCmd lists the active workflows' issues, one a line, for completion.
type IssuesCmd struct{}

// Run prints them.
func (c *IssuesCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.ActiveIssues()
}
