package tdd

import (
	"io"
	"os"
	"path/filepath"

	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/state"
)

// lifecycleEnv opens the repository the command runs in for the lifecycle.
func lifecycleEnv(env *cmdline.Env) (*lifecycle.Env, error) {
	repo, err := env.Repo()
	if err != nil {
		return nil, err
	}
	cwd, err := env.Cwd()
	if err != nil {
		return nil, err
	}
	return &lifecycle.Env{
		Ctx: env.Ctx, Repo: repo, Store: state.New(repo.CommonDir),
		Config: func(rev string) (*config.Config, error) { return env.Config(repo, rev) },
		Out:    env.Stdout, Err: env.Stderr, Getenv: env.Getenv, Color: env.Color, Cwd: cwd,
	}, nil
}

// issueArg is the optional issue of most commands: inside a workflow's
// worktree it is inferred.
type issueArg struct {
	Issue string `arg:"" optional:"" help:"The issue (inferred inside its worktree)."`
}

// inForce is the configuration that governs the working tree the command runs
// in: inside a workflow's worktree, .git-tdd.toml as committed at its base (an
// agent's commits on the branch do not change it); elsewhere, as committed at HEAD.
func inForce(env *cmdline.Env, l *lifecycle.Env) (*config.Config, string, error) {
	if w, _, err := l.Find(""); err == nil && w.Active() {
		c, err := env.Config(l.Repo, w.BaseCommit)
		return c, w.Issue, err
	}
	c, err := env.Config(l.Repo, "HEAD")
	return c, "", err
}

// inForceEnv is the lifecycle environment with the configuration in force
// and the workflow's issue, if the command runs in one's worktree.
func inForceEnv(env *cmdline.Env) (*lifecycle.Env, *config.Config, string, error) {
	l, err := lifecycleEnv(env)
	if err != nil {
		return nil, nil, "", err
	}
	cfg, issue, err := inForce(env, l)
	return l, cfg, issue, err
}

// applyEnv prepares writing into the working tree the command runs in.
func applyEnv(env *cmdline.Env, command string) (*apply.Env, error) {
	l, cfg, issue, err := inForceEnv(env)
	if err != nil {
		return nil, err
	}
	return &apply.Env{Ctx: env.Ctx, Repo: l.Repo, Store: l.Store, Cfg: cfg, Out: env.Stdout, Err: env.Stderr,
		Getenv: env.Getenv, Color: env.Color, Command: command, Issue: issue, Cwd: l.Cwd}, nil
}

// input reads --from (relative to -C's directory), or standard input.
func input(env *cmdline.Env, from string) ([]byte, error) {
	if from != "" {
		cwd, err := env.Cwd()
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(from) {
			from = filepath.Join(cwd, from)
		}
		data, err := os.ReadFile(from)
		return data, exitcode.Wrap(exitcode.Usage, err)
	}
	if env.Stdin == nil {
		return nil, exitcode.New(exitcode.Usage, "no input: give it on standard input or with --from FILE")
	}
	return io.ReadAll(env.Stdin)
}
