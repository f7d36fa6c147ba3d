package tdd

import (
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/state"
)

// lifecycleEnv opens the repository the command runs in for the lifecycle.
func lifecycleEnv(env *cmdline.Env) (*lifecycle.Env, error) {
	repo, err := env.Repo()
	if err != nil {
		return nil, err
	}
	return &lifecycle.Env{
		Ctx: env.Ctx, Repo: repo, Store: state.New(repo.CommonDir),
		Config: func(rev string) (*config.Config, error) { return env.Config(repo, rev) },
		Out:    env.Stdout, Err: env.Stderr, Getenv: env.Getenv, Color: env.Color,
	}, nil
}

// issueArg is the optional issue of most commands: inside a workflow's
// worktree it is inferred.
type issueArg struct {
	Issue string `arg:"" optional:"" help:"The issue (inferred inside its worktree)."`
}
