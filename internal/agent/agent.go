// Package agent asks the configured coding agent for an answer: a local
// command that reads the prompt on stdin and answers on stdout, or a model
// behind the Anthropic Messages API or an OpenAI-compatible chat API, reached
// through their official SDKs (retries, rate-limit back-off, typed stop reasons).
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Answer is what one call returned.
type Answer struct {
	Text       string
	TokensIn   int
	TokensOut  int
	Truncated  bool   // the model stopped at its token limit
	StopReason string // as the provider said it
	Elapsed    time.Duration
}

// Agent answers prompts.
type Agent interface {
	// Ask sends prompt; dir is the worktree (where an agent that edits files
	// itself runs).
	Ask(ctx context.Context, prompt, dir string) (*Answer, error)
	// Describe says, for the data policy, where prompts go.
	Describe() string
	// EditsFiles reports whether the agent changes the worktree itself (mode
	// "edit"), rather than answering with files.
	EditsFiles() bool
}

// Options are what New needs besides the configuration.
type Options struct {
	Env     []string              // the sealed environment a command runs in
	Getenv  func(string) string   // where API keys are read from
	Stderr  io.Writer             // a command's own diagnostics
	Count   func(text string) int // counts a command's tokens, which it does not report
	Retries int                   // HTTP retries; 0 is 3
	// Sandbox confines a command agent in the worktree (the HTTP providers
	// run in this process and run no agent code); its zero value refuses to
	// run one.
	Sandbox agentbox.Settings
	// Unconfined records, before each call that runs without the sandbox,
	// that it does (the workflow's record); nil records nothing.
	Unconfined func() error
	// Meter is told, while a call runs, how much of the answer has come:
	// a command reports its stdout's bytes, a provider that streams the
	// output tokens so far (Meter.Tokens). nil counts nothing.
	Meter *Meter
}

// Meter counts what the call in progress has received so far, for a live
// progress line. Its methods are safe on other goroutines and on nil.
type Meter struct {
	bytes, tokens atomic.Int64
}

// Bytes records the bytes received so far.
func (m *Meter) Bytes(total int64) {
	if m != nil {
		m.bytes.Store(total)
	}
}

// Tokens records the output tokens received so far (a streaming provider).
func (m *Meter) Tokens(total int64) {
	if m != nil {
		m.tokens.Store(total)
	}
}

// Reset starts a new call.
func (m *Meter) Reset() {
	if m != nil {
		m.bytes.Store(0)
		m.tokens.Store(0)
	}
}

// Received is what the call has received so far.
func (m *Meter) Received() (bytes, tokens int64) {
	if m == nil {
		return 0, 0
	}
	return m.bytes.Load(), m.tokens.Load()
}

// New returns the agent that cfg configures.
func New(cfg config.Agent, o Options) (Agent, error) {
	if o.Retries == 0 {
		o.Retries = 3
	}
	switch {
	case len(cfg.Command) > 0 && cfg.Provider != "":
		return nil, errors.New("[agent] sets both command and provider: choose one")
	case len(cfg.Command) > 0:
		return &command{cfg: cfg, o: o}, nil
	case cfg.Mode == "edit":
		return nil, errors.New(`[agent] mode = "edit" needs a command that edits the worktree itself (claude -p, codex exec, aider --message)`)
	case cfg.Provider == "anthropic":
		return newAnthropic(cfg, o)
	case cfg.Provider == "openai":
		return newOpenAI(cfg, o)
	}
	return nil, errors.New("no agent is configured: set [agent] command, or provider and model, in .git-tdd.toml")
}

// command is a local program: prompt on stdin, answer on stdout.
type command struct {
	cfg config.Agent
	o   Options
}

func (c *command) Describe() string {
	return "the command " + strings.Join(c.cfg.Command, " ")
}

func (c *command) EditsFiles() bool { return c.cfg.Mode == "edit" }

func (c *command) Ask(ctx context.Context, prompt, dir string) (*Answer, error) {
	start := time.Now()
	box, err := c.o.Sandbox.Open(dir, true)
	if err != nil {
		return nil, err
	}
	if c.o.Sandbox.Off {
		if c.o.Stderr != nil {
			term.Warn(c.o.Stderr, "git-tdd", "%s", agentbox.Warning("the agent's command"))
		}
		if c.o.Unconfined != nil {
			if err := c.o.Unconfined(); err != nil {
				box.Close()
				return nil, err
			}
		}
	}
	out, err := runner.Capture(ctx, runner.Call{Argv: c.cfg.Command, Dir: dir, Env: box.Env(c.o.Env), Stdin: []byte(prompt),
		Timeout: c.cfg.Timeout.Duration, Stderr: c.o.Stderr, Sandbox: box.Policy, Received: c.o.Meter.Bytes})
	if cerr := box.Close(); errors.Is(cerr, agentbox.ErrGitFile) && c.o.Stderr != nil {
		term.Warn(c.o.Stderr, "git-tdd", "%v", cerr)
	} else if cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		return nil, c.failed(withOutput(err, out))
	}
	a := &Answer{Text: string(out), Elapsed: time.Since(start), StopReason: "exit 0"}
	if c.o.Count != nil {
		a.TokensIn, a.TokensOut = c.o.Count(prompt), c.o.Count(a.Text)
	}
	return a, nil
}

// failed is a failed call's error; for an agent CLI that calls its model's
// API (claude, codex) confined without network, with the hint that says
// how to give it some: it can only say it could not connect.
func (c *command) failed(err error) error {
	noNet := func(string) string { return "" }
	if c.o.Sandbox.Off || c.o.Sandbox.Network || agentbox.APIPorts(c.cfg.Command[0], noNet) == nil {
		return err
	}
	return exitcode.With(exitcode.Escalate, fmt.Errorf("the agent failed: %w", err)).
		WithHint("%s reaches no network in the sandbox: [agent] ports = [443] lets it reach its API (add the port of its base URL when you set one)", filepath.Base(c.cfg.Command[0]))
}

// withOutput adds to a failed command's error the last lines it printed on
// stdout, escaped: CLIs such as claude -p say why they failed there.
func withOutput(err error, out []byte) error {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, term.Line(l, 200))
		}
	}
	if len(lines) == 0 {
		return err
	}
	return fmt.Errorf("%w; its output ended: %s", err, strings.Join(lines[max(0, len(lines)-3):], " / "))
}

// apiKey reads the key from the configured variable, or the provider's usual one.
func apiKey(cfg config.Agent, o Options, usual string) (string, string) {
	name := cfg.APIKeyEnv
	if name == "" {
		name = usual
	}
	return name, o.Getenv(name)
}

func needModel(cfg config.Agent) error {
	if cfg.Model == "" {
		return fmt.Errorf("[agent] provider = %q needs a model", cfg.Provider)
	}
	return nil
}
