// Package gitx is the only place that runs git: every call passes the flags that make
// its output independent of the user's configuration, and git's output is parsed in
// pure functions.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/git-tdd/git-tdd/internal/confine"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrNotRepository means the directory is not inside a git working tree.
var ErrNotRepository = errors.New("not a git repository (or any of the parent directories)")

// Repo is one working tree of a git repository.
type Repo struct {
	Top       string // the working tree's top level
	GitDir    string // this working tree's git directory
	CommonDir string // shared by every working tree: objects, refs, our state
	env       []string
}

// CommandError is a git command that failed; it keeps what git said.
type CommandError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	msg = strings.TrimPrefix(msg, "fatal: ")
	msg = strings.TrimPrefix(msg, "error: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

// pathEnv are the variables git may set (in hooks, or for `git --git-dir`) that hold
// paths; they are made absolute so that git runs the same from any directory.
var pathEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}

// droppedEnv are variables that change diff output behind the flags we pass
// (GIT_DIFF_OPTS overrides --unified); git runs without them.
var droppedEnv = []string{"GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF"}

var gitPath = sync.OnceValues(func() (string, error) { return exec.LookPath("git") })

// Open finds the repository that dir is in.
func Open(ctx context.Context, dir string) (*Repo, error) {
	return open(ctx, dir, absoluteEnv(os.Environ()))
}

// Located are the variables that tell git where the repository is, instead of
// finding it from the current directory.
var Located = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE"}

// OpenDiscovered finds the repository that dir is in as git's own discovery
// does, whatever the Located variables say.
func OpenDiscovered(ctx context.Context, dir string) (*Repo, error) {
	env := absoluteEnv(os.Environ())
	return open(ctx, dir, slices.DeleteFunc(env, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(Located, k)
	}))
}

// IndexPath is the index file of this working tree.
func (r *Repo) IndexPath(ctx context.Context) (string, error) { return r.indexPath(ctx) }

func open(ctx context.Context, dir string, env []string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cannot change to %s: no such directory", abs)
	}
	if r, ok := discover(abs, env); ok {
		return r, nil
	}
	r := &Repo{Top: abs, env: env}
	out, err := r.output(ctx, "rev-parse", "--path-format=absolute", "--is-inside-work-tree", "--git-dir", "--git-common-dir", "--show-toplevel")
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "not a git repository") {
			return nil, ErrNotRepository
		}
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "must be run in a work tree") {
			return nil, errors.New("this command needs a working tree, and this repository is bare")
		}
		return nil, err
	}
	fields, ok := splitRevParse(out, 4)
	if !ok || fields[0] != "true" {
		return nil, errors.New("this command needs a working tree; run it inside one (not inside .git)")
	}
	r.GitDir, r.CommonDir, r.Top = fields[1], fields[2], fields[3]
	return r, nil
}

// splitRevParse splits rev-parse's newline-separated answers; a path that itself
// contains a newline makes the count wrong, which is reported rather than guessed at.
func splitRevParse(out []byte, n int) ([]string, bool) {
	s := strings.TrimSuffix(string(out), "\n")
	fields := strings.Split(s, "\n")
	return fields, len(fields) == n
}

// absoluteEnv prepares git's environment: path variables made absolute, and the
// variables that would override our output flags dropped.
func absoluteEnv(env []string) []string {
	cwd, err := os.Getwd()
	if err != nil {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(droppedEnv, k) {
			continue
		}
		for _, p := range pathEnv {
			if k == p && v != "" && !filepath.IsAbs(v) {
				kv = k + "=" + filepath.Join(cwd, v)
			}
		}
		out = append(out, kv)
	}
	// Replace refs (refs/replace/*) make git show one object as another, and a
	// graft file gives a commit other parents: a commit could pass for one that
	// was approved, or for an ancestor. We read objects as they are.
	return append(out, "GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE="+os.DevNull)
}

// trustedHistory: git takes parents from the commit-graph file when there is
// one, without checking it against the commits, and an agent can write that
// file: reachability and history walks read the commit objects instead.
var trustedHistory = []string{"-c", "core.commitGraph=false"}

// noFSMonitor: core.fsmonitor names a program (a hook script, or git's own
// daemon) that any command reading the working tree runs to learn what
// changed, and .git/config, anyone's to write, sets it. Nothing of ours needs
// it: without it git looks at the files itself, which only a very large
// working tree notices. Passed on the command line, it also holds in the
// submodules git status visits.
var noFSMonitor = []string{"-c", "core.fsmonitor=false"}

// everyCall are the settings every git call starts with.
var everyCall = slices.Concat(trustedHistory, noFSMonitor)

// command prepares git with args in the working tree's top level.
func (r *Repo) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	git, err := gitPath()
	if err != nil {
		return nil, fmt.Errorf("git is not installed or not on PATH: %w", err)
	}
	cmd := exec.CommandContext(ctx, git, slices.Concat(everyCall, args)...)
	cmd.Dir = r.Top
	cmd.Env = r.env
	return cmd, nil
}

// traceOn is GIT_TDD_TRACE: every git call is logged on stderr with its duration.
var traceOn = os.Getenv("GIT_TDD_TRACE") != ""

var processStart = time.Now()

// trace logs a finished git call when GIT_TDD_TRACE is set.
func trace(start time.Time, args []string) {
	if traceOn {
		fmt.Fprintf(os.Stderr, "git-tdd trace: +%6.1fms %6.1fms git %s\n",
			float64(start.Sub(processStart).Microseconds())/1000, float64(time.Since(start).Microseconds())/1000, strings.Join(args, " "))
	}
}

// Mark logs a step of the command with its time when GIT_TDD_TRACE is set,
// so that the time between git calls can be told apart too.
func Mark(step string) {
	if traceOn {
		fmt.Fprintf(os.Stderr, "git-tdd trace: +%6.1fms %s\n", float64(time.Since(processStart).Microseconds())/1000, step)
	}
}

// output runs git and returns its standard output.
func (r *Repo) output(ctx context.Context, args ...string) ([]byte, error) {
	return r.outputIn(ctx, nil, args...)
}

// outputIn runs git with stdin and returns its standard output; on failure the
// output git wrote is returned too, with the error. git runs confined (see
// start).
func (r *Repo) outputIn(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.run(ctx, stdin, runConfined, args)
}

// run runs git with stdin through how (runConfined, or onTerminal for a
// signature) and returns its standard output, as outputIn does.
func (r *Repo) run(ctx context.Context, stdin []byte, how func(*exec.Cmd) error, args []string) ([]byte, error) {
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	defer trace(time.Now(), args)
	if err := how(cmd); err != nil {
		return stdout.Bytes(), commandError(ctx, args, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

func commandError(ctx context.Context, args []string, err error, stderr string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &CommandError{Args: args, Code: ee.ExitCode(), Stderr: stderr}
	}
	return fmt.Errorf("running git %s: %w", args[0], err)
}

// exitCode is the code a failed git command ended with, or -1.
func exitCode(err error) int {
	var ce *CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

// start starts git as the programs an agent controls start (confine.Start):
// in a session of its own, without the terminal, its input a pipe or
// /dev/null, and whatever it leaves killed when it exits. Every git call but
// a signature's runs so: git runs programs that a repository's configuration
// or attributes name, anyone's to write (hooks during a ref update, a
// checkout or a merge; clean and smudge filters when it reads or writes the
// working tree; merge drivers; signature checks), and none of them may read
// the terminal, push keys into its input or draw on it.
func start(cmd *exec.Cmd) (*confine.Proc, error) { return confine.Start(cmd) }

// runConfined runs git started by start and waits for it.
func runConfined(cmd *exec.Cmd) error {
	p, err := start(cmd)
	if err != nil {
		return err
	}
	return p.Wait()
}
