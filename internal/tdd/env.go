package tdd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
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
		Out:    env.Stdout, Err: env.Stderr, Getenv: env.Getenv, Color: env.Color, NoPager: env.NoPager, Cwd: cwd,
		Signing: sync.OnceValues(func() (gitx.Signing, error) { return repo.Signing(env.Ctx) }),
		Later:   env.Later,
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
// and the workflow's issue, if the command runs in one's worktree. The
// commands that read or write the worktree's files use it, so it first checks
// where the repository is (locate).
func inForceEnv(env *cmdline.Env) (*lifecycle.Env, *config.Config, string, error) {
	l, err := lifecycleEnv(env)
	if err != nil {
		return nil, nil, "", err
	}
	if err := locate(env, l.Repo); err != nil {
		return nil, nil, "", err
	}
	cfg, issue, err := inForce(env, l)
	return l, cfg, issue, err
}

// locate refuses to read or write files when the repository is not where
// git's own discovery from the current directory finds it: GIT_DIR,
// GIT_WORK_TREE, GIT_COMMON_DIR or GIT_INDEX_FILE point elsewhere (so that
// `GIT_DIR=. GIT_WORK_TREE=. git tdd write hooks/pre-commit` inside .git would
// write a hook), or the working tree is inside a git directory.
func locate(env *cmdline.Env, repo *gitx.Repo) error {
	set := false
	for _, k := range gitx.Located {
		set = set || env.Getenv(k) != ""
	}
	if set {
		found, err := gitx.OpenDiscovered(env.Ctx, env.Dir())
		if err != nil {
			return exitcode.New(exitcode.Usage, "%s say where the repository is, but from here git finds no working tree (%v); nothing was read or written", strings.Join(gitx.Located, ", "), err).
				WithHint("run it inside the working tree, without those variables")
		}
		index, err := found.IndexPath(env.Ctx)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		want := [][3]string{{"the working tree", repo.Top, found.Top}, {"the git directory", repo.GitDir, found.GitDir},
			{"the common git directory", repo.CommonDir, found.CommonDir}}
		if idx := env.Getenv("GIT_INDEX_FILE"); idx != "" {
			want = append(want, [3]string{"the index", absFrom(env.Dir(), idx), index})
		}
		for _, w := range want {
			if !fsafe.SamePath(w[1], w[2]) {
				return exitcode.New(exitcode.Usage, "%s is %s, but from here git finds %s: GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR or GIT_INDEX_FILE point elsewhere; nothing was read or written", w[0], w[1], w[2]).
					WithHint("unset them, and run the command inside the working tree")
			}
		}
	}
	return nil
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	abs, _ := filepath.Abs(filepath.Join(dir, p))
	return abs
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
