package term

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

// PrintError is the one error printer: "prog: error: msg", the detail lines as
// they are, then "hint: …" saying what to run next.
func PrintError(w io.Writer, prog string, err error) {
	if err == nil || exitcode.IsSilent(err) {
		return
	}
	msg := strings.TrimSpace(err.Error())
	fmt.Fprintf(w, "%s: error: %s\n", prog, msg)
	detail, hint := exitcode.Lines(err)
	for _, d := range detail {
		fmt.Fprintln(w, d)
	}
	for _, h := range strings.Split(hint, "\n") {
		if h != "" {
			fmt.Fprintf(w, "hint: %s\n", h)
		}
	}
}

// Warn prints "prog: warning: msg".
func Warn(w io.Writer, prog, format string, args ...any) {
	fmt.Fprintf(w, "%s: warning: %s\n", prog, fmt.Sprintf(format, args...))
}
