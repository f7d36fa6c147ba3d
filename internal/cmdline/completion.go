package cmdline

import (
	"github.com/alecthomas/kong"

	"github.com/git-tdd/git-tdd/internal/completion"
)

// CompletionCmd prints a shell's completion script for the command tree it
// is part of.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

// Run writes the script, generated from the command tree.
func (c *CompletionCmd) Run(env *Env, k *kong.Context) error {
	return completion.Write(env.Stdout, c.Shell, k.Model, env.Prog)
}
