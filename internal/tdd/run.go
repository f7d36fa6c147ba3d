package tdd

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/git-tdd/git-tdd/internal/agent"
	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/agentloop"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/term"
	"github.com/git-tdd/git-tdd/internal/tokens"
)

// RunCmd drives the configured agent through the gated TDD cycle (seed 002).
type RunCmd struct {
	Issue   string        `arg:"" help:"The issue to implement."`
	LLD     string        `name:"lld" placeholder:"FILE" help:"The design the agent implements (for a new workflow)."`
	Context cmdline.Paths `name:"context" placeholder:"PATH..." help:"More files the agent is given, space-separated (checked like git tdd context)."`
	Auto    bool          `help:"Never ask a human: stop with exit 3 before the merge review (also GIT_TDD_AUTO=1)."`
	JSON    bool          `name:"json" help:"Print one JSON object per transition on standard output."`
	// NoSandbox is the human's word only: no file or variable sets it.
	NoSandbox bool `name:"no-sandbox" help:"Run the agent's command without the sandbox, where this machine cannot confine it (warned each call, recorded in the audit log and shown by status)."`
}

// Run drives the loop, resuming where an earlier run stopped.
func (c *RunCmd) Run(env *cmdline.Env) error {
	if err := lifecycle.CheckIssue(c.Issue); err != nil {
		return err
	}
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	l.Out = io.Discard // the loop reports the gates' verdicts; stdout is its summary or JSON
	cfg, err := env.Config(l.Repo, "HEAD")
	if err != nil {
		return err
	}
	if w, _, err := l.Find(c.Issue); err == nil && w.Active() {
		if cfg, err = env.Config(l.Repo, w.BaseCommit); err != nil {
			return err
		}
	}
	a, err := userAgent(env, l.Repo, cfg.Agent)
	if err != nil {
		return err
	}
	if c.NoSandbox {
		// one warning and one audit line for the gates' runs and the agent's
		// calls alike; each agent call warns again
		l.Unconfined("run", c.Issue)
	}
	var box agentbox.Settings
	if len(a.Command) > 0 {
		// a command is an agent's program: confined, or refused here
		if err := agentbox.Check(c.NoSandbox); err != nil {
			return err
		}
		if box, err = agentbox.Load(env.Ctx, l.Repo, cfg.Sandbox, agentbox.Flags{NoSandbox: c.NoSandbox, Network: a.Network, Ports: a.Ports, Program: a.Command[0]}, env.Getenv); err != nil {
			return err
		}
	}
	// stderr with the live line of an agent call: the agent's own stderr
	// goes through it too, so that the two never mix on a terminal
	live, meter := term.NewLive(env.Stderr, env.Getenv), &agent.Meter{}
	// as under git tdd agent: claude and codex keep their state in their
	// own directories (made when missing), the human's tokens and servers out
	agentEnv := lifecycle.AgentEnv(runner.Seal(os.Environ(), cfg.Test.Env), box)
	ag, err := agent.New(a, agent.Options{Env: agentEnv, Getenv: env.Getenv, Stderr: live,
		Count: tokens.Count, Sandbox: box, Unconfined: func() error { return l.MarkUnconfined(c.Issue) }, Meter: meter})
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return agentloop.Run(agentloop.Options{L: l, Agent: ag, Issue: c.Issue, LLD: c.LLD, Context: c.Context,
		Auto: c.Auto || env.Getenv("GIT_TDD_AUTO") == "1", JSON: c.JSON, Out: env.Stdout, Err: live, Count: tokens.Count,
		Live: live, Meter: meter})
}

// userAgent is the committed [agent] table with the user's own overrides on
// top: $XDG_CONFIG_HOME/git-tdd/config.toml, then git config tdd.agent.*.
func userAgent(env *cmdline.Env, repo *gitx.Repo, a config.Agent) (config.Agent, error) {
	dir := env.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		p := filepath.Join(dir, config.UserFile)
		data, err := os.ReadFile(p)
		switch {
		case err == nil:
			if a, err = config.OverrideAgent(a, data, p); err != nil {
				return a, exitcode.Wrap(exitcode.Usage, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return a, exitcode.Wrap(exitcode.Usage, err)
		}
	}
	str := func(key string, dst *string) {
		if v, ok, _ := repo.ConfigValue(env.Ctx, "tdd.agent."+key); ok {
			*dst = v
		}
	}
	str("provider", &a.Provider)
	str("model", &a.Model)
	str("baseurl", &a.BaseURL)
	str("apikeyenv", &a.APIKeyEnv)
	str("mode", &a.Mode)
	if v, ok, _ := repo.ConfigValue(env.Ctx, "tdd.agent.maxtokens"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return a, exitcode.New(exitcode.Usage, "git config tdd.agent.maxtokens: %q is not a number", v)
		}
		a.MaxTokens = n
	}
	if v, ok, _ := repo.ConfigValue(env.Ctx, "tdd.agent.timeout"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return a, exitcode.New(exitcode.Usage, "git config tdd.agent.timeout: %q is not a duration", v)
		}
		a.Timeout = config.Duration{Duration: d}
	}
	if argv, err := repo.ConfigValues(env.Ctx, "tdd.agent.command"); err == nil && len(argv) > 0 {
		a.Command, a.Provider = argv, ""
	}
	return a, nil
}
