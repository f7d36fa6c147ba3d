package diffgate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Signing is whether this user's commits get the SSH signature verify asks for.
type Signing struct {
	Format  string `json:"format"`      // gpg.format
	Key     string `json:"signing_key"` // user.signingkey
	Sign    bool   `json:"commit_gpgsign"`
	Ready   bool   `json:"ready"`   // all three set for SSH
	Missing string `json:"missing"` // what to set, when not ready
	// Listed: the user's public key is in the allowed-signers file (when one is
	// configured and the key could be read); null when unknown.
	Listed *bool `json:"listed"`
}

// signingOf reads the user's signing configuration; signers is the
// allowed-signers file's content ("" when none is configured).
func signingOf(ctx context.Context, repo *gitx.Repo, signers []byte) Signing {
	var s Signing
	s.Format, _, _ = repo.ConfigValue(ctx, "gpg.format")
	s.Key, _, _ = repo.ConfigValue(ctx, "user.signingkey")
	sg, _ := repo.Signing(ctx)
	s.Sign = sg.Sign
	var missing []string
	if sg.Foreign != nil {
		missing = append(missing, sg.Foreign.Undo()+" (a signing program where an agent can write: nothing is signed with it)")
	}
	if s.Format != "ssh" {
		missing = append(missing, "git config gpg.format ssh")
	}
	if s.Key == "" {
		missing = append(missing, "git config user.signingkey ~/.ssh/id_ed25519_sk.pub")
	}
	if !s.Sign {
		missing = append(missing, "git config commit.gpgsign true")
	}
	s.Ready = len(missing) == 0
	s.Missing = strings.Join(missing, "; ")
	if len(signers) > 0 && s.Key != "" {
		if pub, ok := publicKey(s.Key); ok {
			listed := bytes.Contains(signers, []byte(pub))
			s.Listed = &listed
		}
	}
	return s
}

// publicKey is the "type base64" part of user.signingkey: a literal key
// ("key::ssh-ed25519 AAAA…"), a public key file, or a private key file with its
// .pub beside it.
func publicKey(v string) (string, bool) {
	if rest, ok := strings.CutPrefix(v, "key::"); ok {
		return keyFields(rest)
	}
	if strings.HasPrefix(v, "ssh-") || strings.HasPrefix(v, "sk-") || strings.HasPrefix(v, "ecdsa-") {
		return keyFields(v)
	}
	if p, ok := strings.CutPrefix(v, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		v = filepath.Join(home, p)
	}
	for _, f := range []string{v, v + ".pub"} {
		if data, err := os.ReadFile(f); err == nil && !bytes.Contains(data, []byte("PRIVATE KEY")) {
			return keyFields(string(data))
		}
	}
	return "", false
}

func keyFields(s string) (string, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return "", false
	}
	return f[0] + " " + f[1], true
}

// describe is a line for people about the user's signing; the key's name
// and the file's, which the configuration gives, are escaped.
func (s Signing) describe(signersPath string) string {
	s.Key, signersPath = term.Line(s.Key, 200), term.Path(signersPath)
	if !s.Ready {
		line := "not set up for SSH signing: " + s.Missing
		if signersPath != "" {
			line += fmt.Sprintf(" (verify requires signatures by a key in %s)", signersPath)
		}
		return line
	}
	line := fmt.Sprintf("commits are signed with %s (ssh)", s.Key)
	switch {
	case s.Listed == nil:
	case *s.Listed:
		line += fmt.Sprintf("; the key is in %s", signersPath)
	default:
		line += fmt.Sprintf("; the key is NOT in %s: verify will refuse these commits until it is added there on the base branch", signersPath)
	}
	return line
}

// refuseForeignSigner refuses a commit git is about to sign with a signing
// program set where an agent can write (gitx.ForeignSigner): after the hooks,
// git runs that program, and the human types the passphrase into it. The
// commit is signed when commit.gpgSign says so, or git's command line does
// (-S, --gpg-sign, an alias): intentOfCommit reads both, and takes a command
// line it cannot read for a signed commit. Otherwise a warning says what
// git commit -S would do.
func refuseForeignSigner(env *cmdline.Env, repo *gitx.Repo) error {
	if !repo.MayNameForeignSigner() {
		return nil // most commits: no git call
	}
	s, err := repo.Signing(env.Ctx)
	if err != nil || s.Foreign == nil {
		return err
	}
	if s.Sign || intentOfCommit(env, repo).signed {
		return exitcode.With(exitcode.Usage, s.Foreign).WithHint("nothing was committed: git would sign the commit with it, and ask for your passphrase there")
	}
	env.Warn("%s: a commit signed with git commit -S would give your passphrase to it", s.Foreign.Where())
	fmt.Fprintf(env.Stderr, "hint: %s\n", term.Message(s.Foreign.Fix()))
	return nil
}
