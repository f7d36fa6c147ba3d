package completion

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// IssuesCommand is the hidden command that lists the issues to complete, one
// a line; a command tree that has it gets issue numbers completed.
const IssuesCommand = "__issues"

// Write writes shell's completion script for the command tree of app, the
// executable prog (git-tdd, run by git as git tdd).
func Write(w io.Writer, shell string, app *kong.Application, prog string) error {
	s := Spec{Prog: prog, Git: strings.TrimPrefix(prog, "git-")}
	for _, n := range app.Children {
		if n.Type == kong.CommandNode && n.Name == IssuesCommand {
			s.Issues = IssuesCommand
		}
	}
	root := Tree(app)
	switch shell {
	case "bash":
		return Bash(w, root, s)
	case "zsh":
		return Zsh(w, root, s)
	case "fish":
		return Fish(w, root, s)
	}
	return fmt.Errorf("no completion for the shell %q: bash, zsh or fish", shell)
}
