package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Run is where a confined program runs, and what the human allowed it.
type Run struct {
	Worktree  string // the linked worktree, writable; "" for none
	GitDir    string // the worktree's own git dir (<common>/worktrees/<name>), read-only
	CommonDir string // the repository's common git dir, read-only
	TempDir   string // the run's private temporary directory (NewTempDir), writable

	Home       string              // the human's home directory
	Getenv     func(string) string // where credential stores were moved (GNUPGHOME, ...); nil: nowhere
	SigningKey string              // git config user.signingkey: a key file is denied

	Write []string // more writable paths: [sandbox] write, tdd.sandbox.write, --write; each must exist
	Deny  []string // more unreadable paths: [sandbox] deny

	Network  bool
	Ports    []uint16
	Terminal bool // git tdd agent: the program keeps the terminal it is given
}

// Credentials are the paths under the home directory that hold the human's
// secrets; no confined program reads them.
var Credentials = []string{
	".ssh", ".gnupg", ".config/gh", ".netrc", ".git-credentials", ".config/git/credentials",
	".aws", ".config/gcloud", ".docker/config.json", ".password-store",
}

// credentialEnv are the variables that move a credential store, and the file
// or directory under their value that holds the secret ("" for the value
// itself).
var credentialEnv = [][2]string{
	{"GNUPGHOME", ""}, {"GH_CONFIG_DIR", ""}, {"XDG_CONFIG_HOME", "gh"}, {"XDG_CONFIG_HOME", "git/credentials"},
	{"NETRC", ""}, {"AWS_SHARED_CREDENTIALS_FILE", ""}, {"AWS_CONFIG_FILE", ""}, {"CLOUDSDK_CONFIG", ""},
	{"DOCKER_CONFIG", "config.json"}, {"PASSWORD_STORE_DIR", ""},
}

// AgentState are the agent CLIs' own state under the home directory, writable
// for an agent where they exist: Claude Code's and Codex's.
var AgentState = []string{".claude", ".claude.json", ".codex"}

// trusted are what git-tdd or git reads as the human's word, under the home
// directory: no writable path may hold one or lie in one.
var trusted = []string{".gitconfig", ".config/git", ".config/git-tdd"}

// ForAgent is the policy of an agent's run: ForTests', and the agent CLIs'
// state directories that exist writable.
func ForAgent(r Run) (Policy, error) {
	var state []string
	for _, s := range AgentState {
		p := filepath.Join(r.Home, s)
		if _, err := os.Stat(p); err == nil {
			state = append(state, p)
		}
	}
	return build(r, state)
}

// ForTests is the policy of a test run, and the base of an agent's: writable
// the worktree, the temporary directory and the paths allowed; read-only the
// rest, the repository's git dirs included; unreadable the credentials, the
// signing key and the paths denied.
func ForTests(r Run) (Policy, error) {
	r.Terminal = false
	return build(r, nil)
}

func build(r Run, more []string) (Policy, error) {
	if !filepath.IsAbs(r.Home) {
		return Policy{}, fmt.Errorf("sandbox: the home directory %q is not an absolute path", r.Home)
	}
	home, err := resolve(r.Home)
	if err != nil {
		return Policy{}, err
	}
	if r.CommonDir == "" || r.TempDir == "" {
		return Policy{}, errors.New("sandbox: a run needs the repository's git dir and a temporary directory")
	}
	p := Policy{Network: r.Network, Ports: r.Ports, Terminal: r.Terminal}
	if r.Worktree != "" {
		wt, werr := resolve(r.Worktree)
		cd, cerr := resolve(r.CommonDir)
		if werr == nil && cerr == nil && within(cd, wt) {
			return Policy{}, fmt.Errorf("sandbox: %s holds the repository's git dir: a program is confined in a linked worktree (git tdd start)", r.Worktree)
		}
	}
	for _, dir := range []string{r.CommonDir, r.GitDir} {
		if dir != "" {
			if err := p.add(&p.Read, dir, home, true); err != nil {
				return Policy{}, err
			}
		}
	}
	writes := append([]string{r.Worktree, r.TempDir}, r.Write...)
	for _, w := range append(writes, more...) {
		if w != "" {
			if err := p.add(&p.Write, w, home, true); err != nil {
				return Policy{}, err
			}
		}
	}
	for _, d := range denied(r) {
		if err := p.add(&p.Deny, d, home, false); err != nil {
			return Policy{}, err
		}
	}
	protected := slices.Clone(p.Read)
	for _, t := range trusted {
		protected = append(protected, filepath.Join(home, t))
	}
	if x := getenv(r, "XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		protected = append(protected, filepath.Join(x, "git"), filepath.Join(x, "git-tdd"))
	}
	for _, w := range p.Write {
		for _, t := range protected {
			if t, err := resolve(t); err == nil && overlap(w, t) {
				return Policy{}, fmt.Errorf("sandbox: %s cannot be writable: it would make %s writable, or lies in it", w, t)
			}
		}
	}
	return p, p.Validate()
}

// denied are the paths a run may not read, as given.
func denied(r Run) []string {
	var ds []string
	for _, c := range Credentials {
		ds = append(ds, filepath.Join(r.Home, c))
	}
	for _, ce := range credentialEnv {
		if v := getenv(r, ce[0]); filepath.IsAbs(v) {
			ds = append(ds, filepath.Join(v, ce[1]))
		}
	}
	if key := r.SigningKey; key != "" && !strings.HasPrefix(key, "key::") {
		if rest, ok := strings.CutPrefix(key, "~/"); ok {
			key = filepath.Join(r.Home, rest)
		}
		if filepath.IsAbs(key) {
			// an ssh key names the public half; the private one is beside it
			ds = append(ds, key, strings.TrimSuffix(key, ".pub"))
		}
	}
	return append(ds, r.Deny...)
}

func getenv(r Run, name string) string {
	if r.Getenv == nil {
		return ""
	}
	return r.Getenv(name)
}

// add resolves path ("~/..." is under home) and adds it to list once; a path
// that must exist and does not is an error.
func (p *Policy) add(list *[]string, path, home string, mustExist bool) error {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		path = filepath.Join(home, rest)
	} else if path == "~" {
		path = home
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("sandbox: %q is not an absolute path", path)
	}
	resolved, err := resolve(path)
	if err != nil {
		return err
	}
	if mustExist {
		if _, err := os.Stat(resolved); err != nil {
			return fmt.Errorf("sandbox: %s: %w", path, err)
		}
	}
	if !slices.Contains(*list, resolved) {
		*list = append(*list, resolved)
	}
	return nil
}

// resolve makes path clean and free of symbolic links: those of its longest
// existing ancestor are resolved, a dangling one is followed to where it
// points, and the rest, which does not exist, is kept.
func resolve(path string) (string, error) {
	return resolveDepth(filepath.Clean(path), 0)
}

func resolveDepth(path string, depth int) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("sandbox: %w", err)
		}
		if target, lerr := os.Readlink(path); lerr == nil {
			if depth == 40 {
				return "", fmt.Errorf("sandbox: %s: too many levels of symbolic links", path)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			return resolveDepth(filepath.Join(append([]string{target}, rest...)...), depth+1)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return "", fmt.Errorf("sandbox: %w", err)
		}
		rest = append([]string{filepath.Base(path)}, rest...)
		path = parent
	}
}

// NewTempDir makes a run's private temporary directory under dir ("" for the
// system's), readable by its owner only.
func NewTempDir(dir string) (string, error) {
	d, err := os.MkdirTemp(dir, "git-tdd-run-")
	if err != nil {
		return "", err
	}
	return resolve(d)
}
