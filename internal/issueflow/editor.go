package issueflow

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/git-tdd/git-tdd/internal/confine"
	"mvdan.cc/sh/v3/shell"
)

// EditorArgv splits the editor git names (git var GIT_EDITOR) into a program
// and its arguments as a shell would (quotes, $VAR, ~) without running one: a
// command substitution, pipe or list is refused, never executed.
func EditorArgv(editor string, getenv func(string) string) ([]string, error) {
	if strings.TrimSpace(editor) == "" {
		return nil, fmt.Errorf("no editor is set: set core.editor, GIT_EDITOR, VISUAL or EDITOR")
	}
	argv, err := shell.Fields(editor, getenv)
	if err != nil || len(argv) == 0 {
		return nil, fmt.Errorf("the editor %q needs a shell to run, and git tdd runs programs without one: set core.editor to a program and its arguments (like \"code -w\" or \"vim\")", editor)
	}
	return argv, nil
}

// Editor opens files for a human and waits until they close them.
type Editor struct {
	Argv []string // the program, resolved, and its arguments
	Dir  string
	Env  []string
	TTY  *os.File // the terminal: the editor's input and output
	// Repository: the repository's own configuration chose the editor
	// (core.editor in .git/config), which anything running there writes:
	// what it leaves running is not the human's, and is not spared.
	Repository bool
}

// NewEditor resolves the editor's program on PATH (N1's check that it exists).
func NewEditor(editor string, getenv func(string) string, dir string, env []string) (*Editor, error) {
	argv, err := EditorArgv(editor, getenv)
	if err != nil {
		return nil, err
	}
	path, err := lookPath(argv[0], getenv("PATH"))
	if err != nil {
		return nil, fmt.Errorf("the editor %q (from git var GIT_EDITOR) is not an executable on PATH: install it, or set core.editor to one", argv[0])
	}
	argv[0] = path
	return &Editor{Argv: argv, Dir: dir, Env: env}, nil
}

// Edit runs the editor on files with the terminal as its input and output, as
// git does for a commit message, and waits for it, even when interrupted:
// Ctrl-C reaches the editor too, and it decides (killing it could lose edits).
// It is the human's program, not confined; a server it leaves running (emacs
// --daemon, a code window) is spared when a question kills what agents left,
// unless the repository's configuration chose the editor: then it is killed,
// and named, before the next question.
func (e *Editor) Edit(ctx context.Context, files ...string) error {
	cmd := exec.Command(e.Argv[0], append(append([]string{}, e.Argv[1:]...), files...)...)
	cmd.Dir, cmd.Env = e.Dir, e.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.TTY, e.TTY, e.TTY
	run := func() error { return confine.Spare(cmd.Run) }
	if e.Repository {
		run = cmd.Run
	}
	if err := run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the editor %s failed: %w", e.Argv[0], err)
	}
	return nil
}
