package issueflow

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/term"
)

// credentials are the variables that let a program act on GitHub or through
// the user's SSH keys: a model's command gets none of them (seed 004 §3.11:
// the agent never has gh). Seal drops the servers (ssh-agent, askpass
// programs).
var credentials = slices.Concat(runner.Credentials, []string{"GH_CONFIG_DIR", "GH_HOST", "GH_REPO",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"})

// ModelEnv is the environment of a drafter or reviewer: the sealed one
// (runner.Seal), without credentials, and with gh pointed at an empty
// configuration, so that a gh the model runs is not logged in.
func ModelEnv(environ []string, ghConfig string) []string {
	var out []string
	for _, kv := range runner.Seal(environ, nil) {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, c := range credentials {
			drop = drop || k == c
		}
		if !drop {
			out = append(out, kv)
		}
	}
	// git of its own without the user's configuration: no credential helper
	// to ask for a token, no prompt for one
	return append(out, "GH_CONFIG_DIR="+ghConfig, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
}

// Command is a drafter or reviewer that is a program: the prompt on its
// standard input, the answer on its standard output. It runs without a shell,
// in an empty directory of its own (not the repository), in ModelEnv,
// headless (runner.Capture), in the sandbox box sets up (that directory
// writable, not the repository), stopped after timeout.
func Command(argv, environ []string, timeout time.Duration, box agentbox.Settings, warn io.Writer) Model {
	return func(ctx context.Context, prompt string) ([]byte, error) {
		dir, err := os.MkdirTemp("", "git-tdd-issue-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		ghConfig := filepath.Join(dir, ".gh")
		if err := os.Mkdir(ghConfig, 0o700); err != nil {
			return nil, err
		}
		work := filepath.Join(dir, "work")
		if err := os.Mkdir(work, 0o700); err != nil {
			return nil, err
		}
		b, err := box.Open(work, false)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		if box.Off {
			term.Warn(warn, "git-tdd", "%s", agentbox.Warning(term.Line(filepath.Base(argv[0]), 60)))
		}
		var stderr bytes.Buffer
		out, err := runner.Capture(ctx, runner.Call{Argv: argv, Dir: work, Env: b.Env(ModelEnv(environ, ghConfig)),
			Stdin: []byte(prompt), Timeout: timeout, Stderr: &stderr, Limit: MaxFile, Sandbox: b.Policy})
		if err != nil && ctx.Err() == nil {
			if msg := tailLines(stderr.String(), 4); msg != "" {
				err = fmt.Errorf("%w: %s", err, msg)
			}
		}
		return out, err
	}
}
