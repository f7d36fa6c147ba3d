package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/sandbox"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Agent is a git tdd agent session: an interactive agent (claude, codex,
// aider) run in a workflow's worktree, on the terminal git tdd was started
// from, in the sandbox.
type Agent struct {
	Issue   string   // "" for the workflow whose worktree this is, or the only active one
	Argv    []string // the agent and its arguments
	Flags   agentbox.Flags
	Environ []string // the agent's environment, before the sandbox's changes
}

// RunAgent runs the session and returns the agent's exit code (as a silent
// error when it is not 0). While it runs, the terminal is registered as held
// (package heldtty): no gate asks its question there.
func (e *Env) RunAgent(a Agent) error {
	if len(a.Argv) == 0 {
		return exitcode.New(exitcode.Usage, "name the agent to run after --: git tdd agent [<issue>] -- claude")
	}
	if err := agentbox.Check(a.Flags.NoSandbox); err != nil {
		return err
	}
	w, err := e.agentWorkflow(a.Issue)
	if err != nil {
		return err
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return err
	}
	a.Flags.Program = a.Argv[0]
	if !a.Flags.NoSandbox && !a.Flags.Network && len(a.Flags.Ports) == 0 {
		a.Flags.Ports = e.apiPorts(a.Argv[0])
	}
	s, err := agentbox.Load(e.Ctx, e.Repo, cfg.Sandbox, a.Flags, e.Getenv)
	if err != nil {
		return err
	}
	s.Terminal = true
	if !s.Off {
		fmt.Fprintf(e.Err, "git-tdd: %s runs in the sandbox; network: %s\n", term.Line(filepath.Base(a.Argv[0]), 60), s.NetworkLine())
	}
	box, err := s.Open(w.Worktree, true)
	if err != nil {
		return err
	}
	defer func() {
		if err := box.Close(); errors.Is(err, agentbox.ErrGitFile) {
			term.Warn(e.Err, "git-tdd", "%v", err)
		}
	}()
	release, err := heldtty.Register(e.Repo.CommonDir, terminals())
	if err != nil {
		return err
	}
	defer release()
	if s.Off {
		term.Warn(e.Err, "git-tdd", "%s", agentbox.Warning(term.Line(filepath.Base(a.Argv[0]), 60)))
		if err := e.AuditUnconfined("agent", w.Issue, "git tdd agent ran "+filepath.Base(a.Argv[0])+" without the sandbox"); err != nil {
			return err
		}
		if err := e.MarkUnconfined(w.Issue); err != nil {
			return err
		}
	}
	return e.runInteractive(a.Argv, w.Worktree, box.Env(AgentEnv(a.Environ, s)), box.Policy)
}

// apiPorts are the ports a known agent CLI calls its model on, where this
// machine can limit the network to them; elsewhere none, said once, since
// opening every port is the human's choice (--network).
func (e *Env) apiPorts(program string) []uint16 {
	ports := agentbox.APIPorts(program, e.Getenv)
	if ports == nil {
		return nil
	}
	if st, err := sandbox.Probe(); err == nil && st.LimitsPorts() {
		return ports
	}
	term.Warn(e.Err, "git-tdd", "%s gets no network: this kernel cannot limit it to its API's port 443 (Landlock ABI 4, Linux 6.7); give --network to open every port", term.Line(filepath.Base(program), 60))
	return nil
}

// runInteractive runs argv on this process's terminal and standard files, in
// its process group (Ctrl-C reaches the agent, which decides; git tdd waits),
// confined by policy unless it is nil; what it leaves running is killed.
func (e *Env) runInteractive(argv []string, dir string, env []string, policy *sandbox.Policy) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var wrapped *sandbox.Wrapped
	if policy != nil {
		var err error
		if wrapped, err = policy.Wrap(cmd); err != nil {
			return err
		}
	}
	release := confine.OnTerminal()
	defer release()
	err := cmd.Start()
	if wrapped != nil {
		wrapped.Started()
	}
	if err != nil {
		return exitcode.With(127, fmt.Errorf("running %s: %w", term.Line(argv[0], 60), err))
	}
	err = cmd.Wait()
	if wrapped != nil {
		if werr := wrapped.Err(); werr != nil {
			// the helper said why on stderr, and exited as a shell would
			return exitcode.Silent(exitCode(err))
		}
	}
	if _, kerr := confine.KillStrays(); kerr != nil {
		term.Warn(e.Err, "git-tdd", "%v", kerr)
	}
	if code := exitCode(err); code != 0 {
		return exitcode.Silent(code)
	}
	return nil
}

// exitCode is a finished command's exit code, a shell's 128+N for a signal.
func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if code := ee.ExitCode(); code >= 0 {
		return code
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}

// agentWorkflow is the workflow a session runs in: the issue's, else the one
// whose worktree this is, else the only active one.
func (e *Env) agentWorkflow(issue string) (*state.Workflow, error) {
	if issue != "" {
		return e.active(issue)
	}
	st, err := e.Store.Load()
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if w := e.here(st); w != nil {
		return e.active(w.Issue)
	}
	var active []*state.Workflow
	for _, w := range st.SortedWorkflows() {
		if w.Active() {
			active = append(active, w)
		}
	}
	switch len(active) {
	case 1:
		return e.active(active[0].Issue)
	case 0:
		return nil, exitcode.New(exitcode.Usage, "no workflow is active: an agent runs in a workflow's worktree").WithHint("git tdd start <issue> begins one")
	}
	names := make([]string, len(active))
	for i, w := range active {
		names[i] = w.Issue
	}
	return nil, exitcode.New(exitcode.Usage, "%d workflows are active: name the issue", len(active)).WithHint("git tdd agent <issue> -- <agent>; active: %s", strings.Join(names, ", "))
}

// terminals are the device numbers of the terminals the session holds: the
// controlling one and any standard file that is a terminal.
func terminals() []uint64 {
	var devs []uint64
	add := func(f *os.File) {
		if d, ok := heldtty.Device(f); ok && term.IsTerminal(f) && !slices.Contains(devs, d) {
			devs = append(devs, d)
		}
	}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		add(f)
		f.Close()
	}
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		add(f)
	}
	return devs
}

// AgentEnv is a session's environment: environ without the human's GitHub
// tokens (runner.Credentials) and servers (runner.Servers: tmux, ssh-agent,
// gpg-agent, the session bus, askpass programs…), and, confined, Claude Code's configuration in ~/.claude
// (CLAUDE_CONFIG_DIR) unless the human chose another: it replaces its
// ~/.claude.json by renaming a new file into the home directory, which the
// sandbox cannot allow for one file.
func AgentEnv(environ []string, s agentbox.Settings) []string {
	out := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(runner.Credentials, k) || runner.IsServer(k)
	})
	if s.Off || s.Home == "" {
		return out
	}
	for _, kv := range out {
		if strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") {
			return out
		}
	}
	dir := filepath.Join(s.Home, ".claude")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return out
	}
	return append(out, "CLAUDE_CONFIG_DIR="+dir)
}
