package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The scoped entries git config --get-regexp prints, as Signing reads them.
func TestParseConfigScopes(t *testing.T) {
	out := "local\x00file:.git/config\x00gpg.ssh.program\n/x/y\x00" +
		"local\x00file:.git/inc\x00commit.gpgsign\x00" +
		"command\x00command line:\x00gpg.program\nwith\nnewline\x00"
	got, err := parseConfigList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := ConfigList{
		{Scope: "local", Origin: "file:.git/config", Key: "gpg.ssh.program", Value: "/x/y", HasValue: true},
		{Scope: "local", Origin: "file:.git/inc", Key: "commit.gpgsign"},
		{Scope: "command", Origin: "command line:", Key: "gpg.program", Value: "with\nnewline", HasValue: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestConfigEntryBool(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "Yes": true, "on": true, "1": true, "-2": true, "0x1": true, "1k": true,
		"false": false, "no": false, "off": false, "0": false, "": false, "maybe": false} {
		if got := (ConfigEntry{Value: v, HasValue: true}).Bool(); got != want {
			t.Errorf("%q: %v", v, got)
		}
	}
	if !(ConfigEntry{}).Bool() {
		t.Error("a key without a value is false")
	}
}

// A signing program set where an agent can write is foreign: the repository's
// configuration, a file it includes, the worktree's, git's command line, and
// a file inside the repository that the user's configuration includes. The
// user's own is not.
func TestSigningForeign(t *testing.T) {
	r := newTestRepo(t)
	home := os.Getenv("HOME")
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, wantSign bool, wantKey, wantFile, wantScope string) {
		t.Helper()
		s, err := repo.Signing(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Foreign != nil && !repo.MayNameForeignSigner() {
			t.Errorf("%s: MayNameForeignSigner says no", name)
		}
		if s.Sign != wantSign {
			t.Errorf("%s: sign %v", name, s.Sign)
		}
		if wantKey == "" {
			if s.Foreign != nil {
				t.Errorf("%s: foreign %+v", name, s.Foreign)
			}
			return
		}
		if s.Foreign == nil || s.Foreign.Key != wantKey || s.Foreign.File != wantFile || s.Foreign.Scope != wantScope {
			t.Errorf("%s: foreign %+v, want %s in %q (%s)", name, s.Foreign, wantKey, wantFile, wantScope)
		}
	}
	os.Unsetenv("GIT_CONFIG_GLOBAL") // ~/.gitconfig, as for everyone
	repo, _ = Open(ctx, r.dir)
	check("nothing set", false, "", "", "")
	if repo.MayNameForeignSigner() {
		t.Error("nothing set: MayNameForeignSigner says yes")
	}
	r.git("config", "--global", "gpg.ssh.program", "op-ssh-sign")
	r.git("config", "--global", "commit.gpgsign", "true")
	check("the user's own", true, "", "", "")
	if repo.MayNameForeignSigner() {
		t.Error("the user's own: MayNameForeignSigner says yes")
	}
	r.git("config", "commit.gpgsign", "off")
	check("turned off here", false, "", "", "")

	r.git("config", "gpg.ssh.defaultKeyCommand", "ssh-add -L")
	check("local", false, "gpg.ssh.defaultKeyCommand", filepath.Join(repo.Top, ".git", "config"), "local")
	r.git("config", "--unset", "gpg.ssh.defaultKeyCommand")

	inc := filepath.Join(t.TempDir(), "inc")
	os.WriteFile(inc, []byte("[gpg]\n\tprogram = evil\n"), 0o644)
	r.git("config", "include.path", inc)
	check("included from local", false, "gpg.program", inc, "local")
	r.git("config", "--unset", "include.path")

	inRepo := filepath.Join(repo.CommonDir, "evil.cfg")
	os.WriteFile(inRepo, []byte("[gpg \"x509\"]\n\tprogram = evil\n"), 0o644)
	r.git("config", "--global", "include.path", inRepo)
	check("a file in the repository the user's includes", false, "gpg.x509.program", inRepo, "global")
	r.git("config", "--global", "--unset", "include.path")
	link := filepath.Join(home, "linked.cfg")
	os.Symlink(inRepo, link)
	r.git("config", "--global", "include.path", link)
	check("linked there", false, "gpg.x509.program", link, "global")
	r.git("config", "--global", "--unset", "include.path")

	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "gpg.openpgp.program")
	t.Setenv("GIT_CONFIG_VALUE_0", "evil")
	repo, _ = Open(ctx, r.dir)
	check("the environment", false, "gpg.openpgp.program", "", "command")
	var f *ForeignSigner
	_, err = repo.CommitTreeSigned(ctx, emptyTree(t, repo), nil, "x\n", true)
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "git's command line") {
		t.Errorf("signing: %v", err)
	}
	if _, err := repo.FirstParentSigned(ctx, "HEAD", filepath.Join(home, "signers")); !errors.As(err, &f) {
		t.Errorf("checking signatures: %v", err)
	}
}

func emptyTree(t *testing.T, r *Repo) string {
	t.Helper()
	tree, err := r.EmptyTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// Signing reads user.signingKey with the rest, the last value winning, so
// that a gate asks git once for all it needs to sign and to deny the key.
func TestSigningKey(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := repo.Signing(ctx); err != nil || s.Key != "" || s.Sign {
		t.Fatalf("unset: %+v %v", s, err)
	}
	r.git("config", "user.signingkey", "/first key")
	r.git("config", "--add", "user.signingKey", "/home/u/.ssh/id ed25519")
	r.git("config", "commit.gpgSign", "true")
	s, err := repo.Signing(ctx)
	if err != nil || s.Key != "/home/u/.ssh/id ed25519" || !s.Sign || s.Foreign != nil {
		t.Fatalf("got %+v %v", s, err)
	}
}
