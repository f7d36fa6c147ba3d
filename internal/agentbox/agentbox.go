// Package agentbox runs an agent's programs in the sandbox (package sandbox):
// git tdd run's agent command, git tdd issue's drafter and reviewer, and git
// tdd agent's interactive agent. It gathers what the human allowed (the
// committed [sandbox] table, each user's git config tdd.sandbox.write, the
// command line), decides whether this machine can confine at all, and makes
// each call's policy, private temporary directory and the worktree's .git
// file check.
package agentbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/sandbox"
)

// UserWriteKey is the git configuration key, read from the user's own files
// only (global and system), that names one more writable path per value.
const UserWriteKey = "tdd.sandbox.write"

// Settings are what every confined call of one command is allowed.
type Settings struct {
	Off        bool     // --no-sandbox: the programs run as the user
	Write      []string // resolved, existing paths the agent may write
	Deny       []string // more paths no confined program reads
	Network    bool
	Ports      []uint16 // with Network, the only TCP ports it may connect to
	Terminal   bool     // git tdd agent: the program keeps its terminal
	Home       string
	Getenv     func(string) string
	SigningKey string
	CommonDir  string
}

// Flags are what the human's command line adds.
type Flags struct {
	NoSandbox bool
	Write     []string // --write: each must exist
	Network   bool     // every port
	Ports     []uint16 // these TCP ports only (--port, [agent] ports)
	// Program is the agent git tdd agent runs: a CLI whose state directory
	// (~/.claude, ~/.codex) is missing gets it made, to be writable.
	Program string
}

// stateDirs are the agent CLIs' state directories, by program name.
var stateDirs = map[string]string{"claude": ".claude", "codex": ".codex"}

// baseURLVars name the APIs the agent CLIs call when the human moved them
// (a proxy, a gateway, a local model server).
var baseURLVars = []string{"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"}

// APIPorts are the TCP ports a known agent CLI (claude, codex) calls its
// model on: 443, and the port of each base URL the human's environment sets;
// nil for any other program, which gets no network unless the human says.
func APIPorts(program string, getenv func(string) string) []uint16 {
	if _, ok := stateDirs[filepath.Base(program)]; !ok {
		return nil
	}
	ports := []uint16{443}
	for _, k := range baseURLVars {
		if p := urlPort(getenv(k)); p != 0 && !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports
}

// urlPort is the TCP port a URL names or its scheme implies; 0 for none.
func urlPort(raw string) uint16 {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return 0
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return 0
		}
		return uint16(n)
	}
	switch u.Scheme {
	case "https":
		return 443
	case "http":
		return 80
	}
	return 0
}

// NetworkLine says what network a confined call has, for the line git tdd
// agent prints before it starts the program.
func (s Settings) NetworkLine() string {
	switch {
	case !s.Network:
		return "none"
	case len(s.Ports) == 0:
		return "every port"
	}
	ps := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		ps[i] = strconv.Itoa(int(p))
	}
	return "TCP ports " + strings.Join(ps, ", ") + " only"
}

// Require is the decision to run an agent's program at all: nil when the
// human gave --no-sandbox or when this machine (st) can confine; else the
// refusal (exit 2) that says why and names --no-sandbox.
func Require(st sandbox.Status, off bool) error {
	if off {
		return nil
	}
	return st.Check(sandbox.Policy{})
}

// Check is Require on this machine, before anything is done.
func Check(off bool) error {
	if off {
		return nil
	}
	st, err := sandbox.Probe()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return Require(st, off)
}

// Load gathers the settings of a command run in repo: sb is the committed
// [sandbox] table (read at the commit the command trusts), f the command
// line; the user's git config tdd.sandbox.write values are added. A
// configured path that does not exist here is left out; a --write path that
// does not exist is an error.
func Load(ctx context.Context, repo *gitx.Repo, sb config.Sandbox, f Flags, getenv func(string) string) (Settings, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Settings{}, exitcode.With(exitcode.Usage, fmt.Errorf("the sandbox needs your home directory: %w", err))
	}
	s := Settings{Off: f.NoSandbox, Network: f.Network || len(f.Ports) > 0, Home: home, Getenv: getenv, CommonDir: repo.CommonDir}
	if !f.Network {
		s.Ports = slices.Clone(f.Ports)
	}
	if s.Off {
		return s, nil
	}
	if d, ok := stateDirs[filepath.Base(f.Program)]; ok {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return Settings{}, err
		}
	}
	user, err := repo.UserConfigValues(ctx, UserWriteKey)
	if err != nil {
		return Settings{}, err
	}
	for _, p := range user {
		if err := config.CheckSandboxPath(p); err != nil {
			return Settings{}, exitcode.New(exitcode.Usage, "git config %s: %v", UserWriteKey, err)
		}
	}
	for _, p := range append(slices.Clone(sb.Write), user...) {
		if _, err := os.Stat(expand(p, home)); err == nil {
			s.Write = append(s.Write, expand(p, home))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Settings{}, exitcode.With(exitcode.Usage, fmt.Errorf("a writable path of the sandbox: %w", err))
		}
	}
	for _, p := range f.Write {
		abs, err := filepath.Abs(expand(p, home))
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return Settings{}, exitcode.With(exitcode.Usage, fmt.Errorf("--write %s: %w", p, err))
		}
		s.Write = append(s.Write, abs)
	}
	if len(s.Ports) > 0 {
		// refused now, before anything runs, where Landlock cannot keep them
		st, err := sandbox.Probe()
		if err != nil {
			return Settings{}, exitcode.Wrap(exitcode.Usage, err)
		}
		if err := st.Check(sandbox.Policy{Network: true, Ports: s.Ports}); err != nil {
			return Settings{}, err
		}
	}
	s.Deny = DenyPaths(sb, home)
	if key, ok, _ := repo.ConfigValue(ctx, "user.signingkey"); ok {
		s.SigningKey = key
	}
	return s, nil
}

// DenyPaths are the committed [sandbox] deny paths, "~/" put under home: no
// confined program, an agent's or a test run's, reads them.
func DenyPaths(sb config.Sandbox, home string) []string {
	var out []string
	for _, p := range sb.Deny {
		out = append(out, expand(p, home))
	}
	return out
}

// expand puts a "~/" path under home.
func expand(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// Box is one confined call: its policy and private temporary directory, and
// the worktree's .git file as it was.
type Box struct {
	// Policy confines the program; nil when the human gave --no-sandbox.
	Policy  *sandbox.Policy
	TempDir string
	gitFile *sandbox.GitFile
}

// Open prepares a call in dir: a linked worktree (worktree), whose .git file
// is checked after the call, or a directory of the call's own (the
// drafter's). The caller must Close it once the program has ended.
func (s Settings) Open(dir string, worktree bool) (*Box, error) {
	if s.Off {
		return &Box{}, nil
	}
	tmp, err := sandbox.NewTempDir("")
	if err != nil {
		return nil, err
	}
	b := &Box{TempDir: tmp}
	if worktree {
		g, err := sandbox.ReadGitFile(dir)
		if err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		b.gitFile = &g
	}
	p, err := sandbox.ForAgent(sandbox.Run{Worktree: dir, CommonDir: s.CommonDir, TempDir: tmp,
		Home: s.Home, Getenv: s.Getenv, SigningKey: s.SigningKey, Write: s.Write, Deny: s.Deny,
		Network: s.Network, Ports: s.Ports, Terminal: s.Terminal})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	b.Policy = &p
	return b, nil
}

// Env is env with the call's temporary directory as TMPDIR.
func (b *Box) Env(env []string) []string {
	if b.TempDir == "" {
		return env
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "TMPDIR" || k == "TMP" || k == "TEMP"
	})
	return append(out, "TMPDIR="+b.TempDir)
}

// ErrGitFile says the program rewrote the worktree's .git file, which was put
// back.
var ErrGitFile = errors.New("the agent changed the worktree's .git file, which names its git dir; it was put back")

// Close puts the worktree's .git file back if the program changed it (then
// returning ErrGitFile with nothing else wrong) and removes the temporary
// directory.
func (b *Box) Close() error {
	var err error
	if b.gitFile != nil {
		changed, rerr := b.gitFile.Restore()
		switch {
		case rerr != nil:
			err = rerr
		case changed:
			err = ErrGitFile
		}
	}
	if b.TempDir != "" {
		if rerr := os.RemoveAll(b.TempDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// Warning is the line printed on stderr each time a program an agent
// controls runs without the sandbox.
func Warning(what string) string {
	return fmt.Sprintf("%s runs WITHOUT the sandbox (--no-sandbox): it can write your git dir, hooks and configuration and read your credentials; this is recorded", what)
}

// StatusLine says whether this machine can confine agents, for git tdd
// status and git diffgate status.
func StatusLine() string {
	st, err := sandbox.Probe()
	if err != nil {
		return "this machine cannot confine agents: " + err.Error()
	}
	return st.Line()
}
