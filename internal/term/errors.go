package term

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

// PrintError is the one error printer: "prog: error: msg", the detail lines,
// then "hint: …" saying what to run next. Every line goes through Message: a
// message can quote a path or content an agent chose, and that must not be able
// to rewrite the screen.
func PrintError(w io.Writer, prog string, err error) {
	if err == nil || exitcode.IsSilent(err) {
		return
	}
	msg := strings.Split(strings.TrimSpace(err.Error()), "\n")
	fmt.Fprintf(w, "%s: error: %s\n", prog, Message(msg[0]))
	detail, hint := exitcode.Lines(err)
	for _, d := range append(msg[1:], detail...) {
		for _, l := range strings.Split(d, "\n") {
			fmt.Fprintln(w, Message(l))
		}
	}
	for _, h := range strings.Split(hint, "\n") {
		if h != "" {
			fmt.Fprintf(w, "hint: %s\n", Message(h))
		}
	}
}

// Warn prints "prog: warning: msg".
func Warn(w io.Writer, prog, format string, args ...any) {
	fmt.Fprintf(w, "%s: warning: %s\n", prog, Message(fmt.Sprintf(format, args...)))
}
