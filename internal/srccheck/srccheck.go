// Package srccheck says whether Python or Go source parses: Go with go/parser,
// Python with the interpreter's own ast module, so that a merge or a patch
// that breaks a file's syntax is refused before it is written.
package srccheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os/exec"
	"path"
	"strings"
)

// ErrNoPython means python3 is not on PATH, so Python could not be checked.
var ErrNoPython = errors.New("python3 is not on PATH: Python syntax is not checked")

// Checked reports whether Check looks at files with this name.
func Checked(name string) bool {
	ext := path.Ext(name)
	return ext == ".py" || ext == ".go"
}

// Check returns nil when src parses as the language of name's extension; a
// SyntaxError names the line. Files of other languages are not checked.
func Check(ctx context.Context, name string, src []byte) error {
	switch path.Ext(name) {
	case ".go":
		_, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		return err
	case ".py":
		return checkPython(ctx, name, src)
	}
	return nil
}

// pythonCheck parses standard input as the file named by its argument into an
// AST (0x400 is ast.PyCF_ONLY_AST), without importing the ast module: the
// parse of a large file is the cost, start-up need not add to it.
const pythonCheck = "import sys\ncompile(sys.stdin.buffer.read(), sys.argv[1], 'exec', 0x400, dont_inherit=True)\n"

func checkPython(ctx context.Context, name string, src []byte) error {
	py, err := exec.LookPath("python3")
	if err != nil {
		return ErrNoPython
	}
	cmd := exec.CommandContext(ctx, py, "-I", "-S", "-c", pythonCheck, name)
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // -I -S: no PYTHON* variable, startup file or site has a say
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%s", lastLine(stderr.String()))
	}
	return err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return "it does not parse"
}
