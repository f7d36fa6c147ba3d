// Package hooks holds the shell shims that git diffgate install writes into a
// repository's hooks directory; they are embedded in the binary.
package hooks

import (
	_ "embed"
	"strings"
)

var (
	//go:embed shim.sh
	shim string
	//go:embed plain.sh
	plain string
	//go:embed stdin.sh
	withStdin string
)

// Marker identifies a hook file as one of ours.
const Marker = "diffgate-shim"

// StdinHooks get their input on stdin, which the shim passes to both hooks.
var StdinHooks = map[string]bool{"reference-transaction": true}

// Gating is what git diffgate hook runs for prepare-commit-msg in strict mode:
// the gate and the trailer in one process, which --no-verify does not skip.
const Gating = "gate-prepare-commit-msg"

// Render returns the shim for hook; exe is the absolute path of git-diffgate,
// used when it is not on PATH; run is what git diffgate hook runs ("" for the
// hook itself).
func Render(hook, exe, run string) []byte {
	body := plain
	if StdinHooks[hook] {
		body = withStdin
	}
	if run == "" {
		run = hook
	}
	s := strings.ReplaceAll(shim, "@BODY@", strings.TrimRight(body, "\n"))
	s = strings.ReplaceAll(s, "@RUN@", run)
	s = strings.ReplaceAll(s, "@HOOK@", hook)
	s = strings.ReplaceAll(s, "@EXE@", shellQuote(exe))
	return []byte(s)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
