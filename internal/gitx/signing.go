package gitx

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/term"
)

// A signature is made on the human's terminal: git's signing program asks
// there for the passphrase (ssh-keygen, gpg's pinentry) or for a touch of the
// key. So the program must be the human's, never one a repository names, and
// nothing else below us may be running when it asks.

// signingPrograms are the settings that name a program git runs to sign a
// commit or to check a signature, or to choose the key (git prints keys in
// lower case).
var signingPrograms = map[string]string{
	"gpg.program":               "gpg.program",
	"gpg.openpgp.program":       "gpg.openpgp.program",
	"gpg.x509.program":          "gpg.x509.program",
	"gpg.ssh.program":           "gpg.ssh.program",
	"gpg.ssh.defaultkeycommand": "gpg.ssh.defaultKeyCommand",
}

// signingSettings asks for those, commit.gpgSign and user.signingKey in one
// call.
const signingSettings = `^(commit\.gpgsign|user\.signingkey|gpg\.(program|openpgp\.program|x509\.program|ssh\.program|ssh\.defaultkeycommand))$`

// Signing is how git signs commits here.
type Signing struct {
	Sign    bool           // commit.gpgSign asks for signed commits
	Key     string         // user.signingKey, "" when unset
	Foreign *ForeignSigner // a signing program set where an agent can write, or nil
}

// ForeignSigner is a signing program named where an agent can write: the
// repository's own configuration (.git/config, config.worktree, or a file
// either includes), git's command line (git -c, GIT_CONFIG_PARAMETERS,
// GIT_CONFIG_COUNT), or a file inside the repository that another
// configuration includes. The passphrase the human types when a commit is
// signed goes to that program; so does every signature git checks.
type ForeignSigner struct {
	Key   string // the setting, as git documents it
	Scope string
	File  string // the file that sets it, absolute; "" for the command line
}

func (f *ForeignSigner) Error() string {
	return fmt.Sprintf("%s: nothing is signed, and no signature checked, by a program the repository chooses (it would read your passphrase)\n%s", f.Where(), f.Fix())
}

// Where says which setting is set where.
func (f *ForeignSigner) Where() string {
	where := "git's command line (git -c, or GIT_CONFIG_PARAMETERS or GIT_CONFIG_COUNT in the environment)"
	if f.File != "" {
		where = f.File + " (" + f.Scope + " configuration)"
	}
	return fmt.Sprintf("%s is set in %s, where an agent can write", f.Key, where)
}

// Fix says what to do: move the setting to the user's own configuration, or
// remove it.
func (f *ForeignSigner) Fix() string {
	return fmt.Sprintf("if the program is yours, set it in your own configuration: git config --global %s <program>; if not, remove it: %s", f.Key, f.Undo())
}

// Undo is how to remove the setting.
func (f *ForeignSigner) Undo() string {
	if f.File == "" {
		return fmt.Sprintf("run git without -c %s=…, with neither variable set", f.Key)
	}
	return fmt.Sprintf("git config --file %s --unset-all %s", term.ShellQuote(f.File), f.Key)
}

// Signing reads commit.gpgSign, user.signingKey and the signing programs, with
// where each is set, in one git call.
func (r *Repo) Signing(ctx context.Context) (Signing, error) {
	out, err := r.output(ctx, "config", "--show-scope", "--show-origin", "-z", "--get-regexp", signingSettings)
	if exitCode(err) == 1 { // none is set
		return Signing{}, nil
	}
	if err != nil {
		return Signing{}, err
	}
	entries, err := parseConfigList(out)
	if err != nil {
		return Signing{}, err
	}
	var s Signing
	for _, e := range entries {
		switch e.Key { // the last one counts
		case "commit.gpgsign":
			s.Sign = e.Bool()
			continue
		case "user.signingkey":
			s.Key = e.Value
			continue
		}
		if s.Foreign == nil {
			s.Foreign = r.foreign(e)
		}
	}
	return s, nil
}

// MayNameForeignSigner reports, without starting git, whether a signing
// program could be set where an agent can write: git's command line passes
// settings, or GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM moves a file, or the
// repository's or the worktree's configuration mentions a program, a key
// command or an include, or the user's includes another file. When it says
// no, Signing would find no ForeignSigner; when in doubt it says yes. It is
// for the hooks, which run on every commit, where a git process costs
// milliseconds.
func (r *Repo) MayNameForeignSigner() bool {
	env := map[string]string{}
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if _, set := env[k]; set {
			return true
		}
	}
	if r.CommonDir == "" || r.GitDir == "" || env["HOME"] == "" {
		return true
	}
	xdg := env["XDG_CONFIG_HOME"]
	if xdg == "" {
		xdg = filepath.Join(env["HOME"], ".config")
	}
	ours := []string{"include", "program", "defaultkeycommand"}
	for _, f := range []struct {
		path  string
		words []string
	}{
		{filepath.Join(r.CommonDir, "config"), ours},
		{filepath.Join(r.GitDir, "config.worktree"), ours},
		{filepath.Join(env["HOME"], ".gitconfig"), ours[:1]},
		{filepath.Join(xdg, "git", "config"), ours[:1]},
	} {
		if fileMentions(f.path, f.words) {
			return true
		}
	}
	return false
}

// foreign is e as a ForeignSigner when an agent can write where it is set:
// anywhere but the user's and the system's configuration, and not in a file
// inside the repository (an include, or GIT_CONFIG_GLOBAL pointing there).
func (r *Repo) foreign(e ConfigEntry) *ForeignSigner {
	key := signingPrograms[e.Key]
	path, isFile := strings.CutPrefix(e.Origin, "file:")
	if isFile && !filepath.IsAbs(path) {
		path = filepath.Join(r.Top, path)
	}
	if !isFile {
		path = ""
	}
	if (e.Scope == "global" || e.Scope == "system") && isFile && !r.holds(path) {
		return nil
	}
	return &ForeignSigner{Key: key, Scope: e.Scope, File: path}
}

// holds reports whether path (symbolic links resolved) lies in the working
// tree or the git directories.
func (r *Repo) holds(path string) bool {
	real := func(p string) string {
		if q, err := filepath.EvalSymlinks(p); err == nil {
			return q
		}
		return filepath.Clean(p)
	}
	path = real(path)
	for _, dir := range []string{r.Top, r.GitDir, r.CommonDir} {
		if dir == "" {
			continue
		}
		if rel, err := filepath.Rel(real(dir), path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// sign runs git to sign (commit-tree -S): after refusing a signing program
// an agent could have chosen, and with nothing left running below us (a
// process that could read the passphrase or draw a prompt of its own), in
// this process's session, where the signing program finds the terminal.
func (r *Repo) sign(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	s, err := r.Signing(ctx)
	if err != nil {
		return nil, err
	}
	if s.Foreign != nil {
		return nil, s.Foreign
	}
	if err := noStrays(); err != nil {
		return nil, err
	}
	return r.run(ctx, stdin, onTerminal, args)
}

// onTerminal runs git in this process's session, with the terminal; what it
// leaves running is the human's (gpg starts its gpg-agent) and is spared.
func onTerminal(cmd *exec.Cmd) error {
	return confine.Spare(cmd.Run)
}

// StraysError names the processes that were found running below us before a
// signature, and killed: nothing was signed, in case one of them drew a
// passphrase prompt of its own.
type StraysError struct {
	Killed []confine.Process
}

func (e *StraysError) Error() string {
	names := make([]string, len(e.Killed))
	for i, p := range e.Killed {
		names[i] = p.String()
	}
	return "killed, before signing, processes left running by a program git or an agent ran: " + strings.Join(names, ", ") +
		"\nnothing was signed; if the terminal showed a prompt before this, it was not git's: run the command again"
}

// noStrays kills what runs below us, and refuses to sign when there was any.
func noStrays() error {
	killed, err := confine.KillStrays()
	if err != nil {
		return fmt.Errorf("%w; nothing was signed", err)
	}
	if len(killed) > 0 {
		return &StraysError{Killed: killed}
	}
	return nil
}
