package completion

import (
	"fmt"
	"io"

	"github.com/alecthomas/kong"
)

// Shells are the shells Write knows.
var Shells = []string{"bash", "zsh", "fish"}

// Write writes shell's completion script for the command tree of app.
func Write(w io.Writer, shell string, app *kong.Application, s Spec) error {
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
