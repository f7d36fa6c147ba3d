package diffgate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/hooks"
	"github.com/git-tdd/git-tdd/internal/term"
)

// InstallCmd writes the hooks.
type InstallCmd struct {
	Strict bool `help:"Also install reference-transaction: no branch moves to content that was not approved (blocks --no-verify and plumbing)."`
	Force  bool `help:"Chain your current hook even when an earlier one is already kept as <hook>.pre-diffgate (that one is kept with a date suffix), and install even where a hook manager (lefthook, pre-commit, husky) owns the hooks."`
}

// Run installs the shims into the hooks directory git uses.
func (c *InstallCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	dir, err := repo.HooksDir(env.Ctx)
	if err != nil {
		return err
	}
	warnRelativeHooksPath(env, repo, dir)
	if err := managed(env, repo, dir, c.Strict, c.Force); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	changes, err := hooks.Install(dir, c.Strict, c.Force, exe)
	if err != nil {
		return exitcode.Wrap(exitcode.Refused, err)
	}
	printChanges(env, dir, changes)
	mode := "default"
	if c.Strict {
		mode = "strict"
	}
	fmt.Fprintf(env.Stdout, "The diff gate guards commits in %s (%s mode).\n", dir, mode)
	signers, signing := signingSetup(env, repo)
	fmt.Fprintf(env.Stdout, "Signing: %s.\n", signing.describe(signers))
	return nil
}

// managed refuses to write hooks a manager owns (lefthook, pre-commit,
// husky): it would overwrite them the next time it installs, or we would
// overwrite its. The error says how to add the gate to the manager instead
// (--strict's hooks, with strict); with force, install goes ahead, chaining
// the manager's hooks, and warns.
func managed(env *cmdline.Env, repo *gitx.Repo, dir string, strict, force bool) error {
	hooksPath, _, _ := repo.ConfigValue(env.Ctx, "core.hooksPath")
	found := hooks.Managers(repo.Top, dir, hooksPath)
	if len(found) == 0 {
		return nil
	}
	m := found[0]
	what := fmt.Sprintf("%s manages this repository's hooks (%s)", m.Name, m.Evidence)
	if force {
		env.Warn("%s: it may overwrite the diff gate's hooks the next time it installs its own; adding the gate to it is safer (git diffgate install without --force says how)", what)
		return nil
	}
	recipe, cmd := m.Recipe, "git diffgate install --force"
	if strict {
		recipe, cmd = m.Strict, "git diffgate install --strict --force"
	}
	return exitcode.New(exitcode.Refused, "%s: git diffgate install would overwrite its hooks, or they would overwrite the diff gate's; nothing was changed", what).
		WithDetail(recipe...).
		WithHint("or install anyway, chained after %s's hooks: %s", m.Name, cmd)
}

// warnRelativeHooksPath: git resolves a relative core.hooksPath in each
// working tree's own top directory, so a linked worktree (git tdd's are) has
// no hooks unless it carries a copy.
func warnRelativeHooksPath(env *cmdline.Env, repo *gitx.Repo, dir string) {
	v, ok, err := repo.ConfigValue(env.Ctx, "core.hooksPath")
	if err != nil || !ok || filepath.IsAbs(v) || strings.HasPrefix(v, "~") {
		return
	}
	env.Warn("core.hooksPath is %q, a relative path: every linked worktree looks for hooks in its own %s, where there are none", v, v)
	fmt.Fprintf(env.Stderr, "hint: make it hold everywhere: git config core.hooksPath %s\n", term.ShellQuote(dir))
}

// hooksDir is the directory git runs this repository's hooks from.
func hooksDir(env *cmdline.Env) (string, error) {
	repo, err := env.Repo()
	if err != nil {
		return "", err
	}
	return repo.HooksDir(env.Ctx)
}

// UninstallCmd removes the hooks.
type UninstallCmd struct{}

// Run removes our shims and puts back the user's hooks.
func (c *UninstallCmd) Run(env *cmdline.Env) error {
	dir, err := hooksDir(env)
	if err != nil {
		return err
	}
	changes, err := hooks.Uninstall(dir)
	if err != nil {
		return err
	}
	printChanges(env, dir, changes)
	return nil
}

func printChanges(env *cmdline.Env, dir string, changes []hooks.Change) {
	if len(changes) == 0 {
		fmt.Fprintf(env.Stdout, "Nothing to change in %s.\n", dir)
	}
	for _, c := range changes {
		fmt.Fprintf(env.Stdout, "%-22s %s\n", c.Hook, c.Action)
	}
}
