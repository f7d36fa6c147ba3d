package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/gocache"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/sandbox"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Unconfined records that the human gave --no-sandbox to command: the
// repository's tests, lint and setup run with the human's rights. It warns
// and writes the audit log.
func (e *Env) Unconfined(command, issue string) {
	e.NoSandbox = true
	what := "the tests, lint and setup commands run"
	if command == "run" {
		what = "the agent's command, the tests, lint and setup commands run"
	}
	term.Warn(e.Err, "git-tdd", "--no-sandbox: %s unconfined, with your rights: they can change what later runs load (site-packages, caches, hooks) and read your credentials", what)
	e.audit(state.AuditEntry{Command: command, Issue: issue, Outcome: "unconfined", Detail: "--no-sandbox"})
}

// run runs s, the repository's code in dir (tests, lint, setup), sealed and,
// unless the human gave --no-sandbox, confined (DESIGN §7): it writes only
// dir and a temporary directory of its own, which also holds its caches, and
// reaches the network only when network says so. Its errors carry their exit
// code: a machine that cannot confine is exit 2, naming --no-sandbox.
func (e *Env) run(cfg *config.Config, s runner.Spec, network bool) (*runner.Result, error) {
	if e.NoSandbox {
		s.Env = e.sealed(cfg)
		gitx.Mark("tests start")
		res, err := runner.Run(e.Ctx, s)
		gitx.Mark("tests ended")
		return res, escalate(err)
	}
	c, err := e.ahead.take(cfg, s.Dir, network)
	if c == nil && err == nil {
		c, err = e.confine(cfg, s.Dir, network)
	}
	if err != nil {
		return nil, escalate(err)
	}
	s.Sandbox, s.Env, s.Warm = c.sandbox, c.env, e.warm
	gitx.Mark("tests start")
	res, err := runner.Run(e.Ctx, s)
	gitx.Mark("tests ended")
	if derr := c.done(e.later); err == nil {
		err = derr
	}
	return res, escalate(err)
}

// ahead is a confined run prepared while a gate stages, for its next run in
// dir with cfg: the temporary directory with its caches, the environment and
// the policy. Made beside staging, they are off the way to the tests.
type ahead struct {
	cfg     *config.Config
	dir     string
	network bool
	ready   chan struct{} // closed once c or err is set
	c       *confined
	err     error
	taken   bool
}

// confineAhead prepares, in the background, the confined run the gate makes
// next in dir; nil when its tests run unconfined.
func (e *Env) confineAhead(cfg *config.Config, dir string, network bool) *ahead {
	if e.NoSandbox {
		return nil
	}
	a := &ahead{cfg: cfg, dir: dir, network: network, ready: make(chan struct{})}
	go func() {
		defer close(a.ready)
		a.c, a.err = e.confine(cfg, dir, network)
	}()
	return a
}

// take is the run prepared ahead when it is for cfg, dir and network and not
// yet used; nil and no error otherwise. Only the goroutine that runs the
// gate's tests takes it.
func (a *ahead) take(cfg *config.Config, dir string, network bool) (*confined, error) {
	if a == nil || a.taken || a.cfg != cfg || a.dir != dir || a.network != network {
		return nil, nil
	}
	a.taken = true
	<-a.ready
	return a.c, a.err
}

// close ends a prepared run nothing took: later, its temporary directory.
func (a *ahead) close(later func(func())) {
	if a == nil || a.taken {
		return
	}
	a.taken = true
	<-a.ready
	if a.c != nil {
		later(func() { os.RemoveAll(a.c.tmp) })
	}
}

// escalate gives an error without an exit code of its own exit 4: the run
// could not be judged.
func escalate(err error) error {
	var coded *exitcode.Error
	if err == nil || errors.As(err, &coded) {
		return err
	}
	return exitcode.With(exitcode.Escalate, err)
}

// confined is one confined run: its sandbox, its environment, and what to
// check and clean up once it ended.
type confined struct {
	sandbox *runner.Sandbox
	env     []string
	gitFile sandbox.GitFile
	tmp     string
}

// confine prepares a confined run in dir, a linked worktree of the
// repository (the workflow's, or a proof's temporary one).
func (e *Env) confine(cfg *config.Config, dir string, network bool) (*confined, error) {
	st, err := sandbox.Probe()
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, err).WithHint(sandbox.NoSandboxHint)
	}
	if err := st.Check(sandbox.Policy{Network: network}); err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	gitFile, err := sandbox.ReadGitFile(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := sandbox.NewTempDir("")
	if err != nil {
		return nil, err
	}
	c := &confined{gitFile: gitFile, tmp: tmp}
	vars, err := runVars(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	p, err := sandbox.ForTests(sandbox.Run{Worktree: dir, GitDir: e.Repo.At(dir).GitDir, CommonDir: e.Repo.CommonDir,
		TempDir: tmp, Home: home, Getenv: e.getenv, SigningKey: e.signingKey(), Deny: agentbox.DenyPaths(cfg.Sandbox, home), Network: network})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	for k, v := range cfg.Test.Env {
		vars[k] = v // the committed [test] env has the last word, as in Seal
	}
	c.sandbox = &runner.Sandbox{Policy: p, TempDir: tmp}
	c.env = runner.Seal(os.Environ(), vars)
	return c, nil
}

func (e *Env) getenv(name string) string {
	if e.Getenv == nil {
		return os.Getenv(name)
	}
	return e.Getenv(name)
}

// runVars point what a run writes besides its worktree into its temporary
// directory, so that no run changes what a later one loads or builds:
// TMPDIR (pytest's tmp_path), the caches of Go, npm, pip and whatever follows
// XDG. Python's bytecode is not written (PYTHONDONTWRITEBYTECODE, sealed), and
// could not be outside the worktree; PYTHONPYCACHEPREFIX is not set, since
// Python then reads no __pycache__ at all and compiles pytest and the
// standard library again on every run (0.4 s, make bench).
func runVars(tmp string) (map[string]string, error) {
	dirs := map[string]string{
		"TMPDIR": "tmp", "XDG_CACHE_HOME": "cache", "GOCACHE": "cache/go-build", "npm_config_cache": "cache/npm",
		"PIP_CACHE_DIR": "cache/pip",
	}
	vars := map[string]string{}
	for k, d := range dirs {
		p := filepath.Join(tmp, d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
		vars[k] = p
	}
	if prog := goCacheProg(filepath.Join(tmp, "cache", "go-layer")); prog != "" {
		vars["GOCACHEPROG"] = prog
	}
	return vars, nil
}

// goCacheProg is the GOCACHEPROG of a confined run (package gocache): the
// user's GOCACHE read, read-only, under own, the run's; "" where git-tdd
// cannot name itself or the paths in go's quoting, and the run then has an
// empty cache of its own (GOCACHE), as with a go command older than 1.24,
// which ignores GOCACHEPROG.
func goCacheProg(own string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	base := userGoCache()
	words := []string{exe, gocache.Command, base, own}
	for i, w := range words {
		if strings.ContainsAny(w, "'\"\n") {
			return ""
		}
		words[i] = "'" + w + "'"
	}
	return strings.Join(words, " ")
}

// userGoCache is the user's GOCACHE as the go command finds it without a
// go.env file: $GOCACHE, else the user's cache directory's go-build; "" when
// there is none.
func userGoCache() string {
	dir := os.Getenv("GOCACHE")
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "go-build")
		}
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// done puts the worktree's .git file back, which Landlock cannot keep
// read-only, and removes the run's temporary directory, later: off the way to
// the verdict (each removal writes the disk, a millisecond or two in all).
// A run that changed the .git file is refused: it tried to send git-tdd's
// next git command to a git dir of its making.
func (c *confined) done(later func(func())) error {
	changed, err := c.gitFile.Restore()
	later(func() { os.RemoveAll(c.tmp) })
	if err != nil {
		return exitcode.With(exitcode.Escalate, err)
	}
	if changed {
		return exitcode.New(exitcode.Refused, "the run changed the worktree's .git file; it was put back, and nothing was recorded")
	}
	return nil
}
