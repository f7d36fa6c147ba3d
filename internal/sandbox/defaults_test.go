package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout is a home directory, a repository with a linked worktree, and a
// run's temporary directory, under a directory of the test's.
type layout struct {
	root, home, repo, common, gitDir, worktree, tmp, extra string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{root: root, home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo"),
		worktree: filepath.Join(root, "repo-issue-1"), tmp: filepath.Join(root, "run-tmp"), extra: filepath.Join(root, "extra")}
	l.common = filepath.Join(l.repo, ".git")
	l.gitDir = filepath.Join(l.common, "worktrees", "repo-issue-1")
	for _, d := range []string{l.gitDir, l.worktree, l.tmp, l.extra, filepath.Join(l.home, ".ssh"), filepath.Join(l.home, ".claude"),
		filepath.Join(l.home, ".config", "gh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l layout) run() Run {
	return Run{Worktree: l.worktree, GitDir: l.gitDir, CommonDir: l.common, TempDir: l.tmp, Home: l.home, Write: []string{l.extra}}
}

func TestForAgent(t *testing.T) {
	l := newLayout(t)
	r := l.run()
	r.SigningKey = "~/.keys/signing.pub"
	env := map[string]string{"GNUPGHOME": filepath.Join(l.root, "gnupg"), "DOCKER_CONFIG": "relative/ignored"}
	r.Getenv = func(k string) string { return env[k] }
	r.Terminal = true
	p, err := ForAgent(r)
	if err != nil {
		t.Fatal(err)
	}
	wantWrite := []string{l.worktree, l.tmp, l.extra, filepath.Join(l.home, ".claude")}
	if !slices.Equal(p.Write, wantWrite) {
		t.Errorf("Write = %v, want %v (no ~/.codex nor ~/.claude.json: they do not exist)", p.Write, wantWrite)
	}
	if want := []string{l.common, l.gitDir}; !slices.Equal(p.Read, want) {
		t.Errorf("Read = %v, want %v", p.Read, want)
	}
	for _, d := range []string{".ssh", ".gnupg", ".config/gh", ".netrc", ".git-credentials", ".aws", ".config/gcloud",
		".docker/config.json", ".password-store", ".keys/signing.pub", ".keys/signing"} {
		if !slices.Contains(p.Deny, filepath.Join(l.home, d)) {
			t.Errorf("Deny lacks ~/%s: %v", d, p.Deny)
		}
	}
	if !slices.Contains(p.Deny, filepath.Join(l.root, "gnupg")) {
		t.Errorf("Deny lacks $GNUPGHOME: %v", p.Deny)
	}
	for _, d := range p.Deny {
		if strings.Contains(d, "relative") {
			t.Errorf("a relative $DOCKER_CONFIG is denied: %s", d)
		}
	}
	if !p.Terminal || p.Network {
		t.Errorf("Terminal %v Network %v, want the run's", p.Terminal, p.Network)
	}

	tests, err := ForTests(r)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tests.Write, filepath.Join(l.home, ".claude")) || tests.Terminal {
		t.Errorf("a test run gets the agent's state or a terminal: %+v", tests)
	}
}

// Paths reached through symbolic links are denied where they lead.
func TestForAgentResolvesLinks(t *testing.T) {
	l := newLayout(t)
	os.RemoveAll(filepath.Join(l.home, ".ssh"))
	elsewhere := filepath.Join(l.root, "vault", "ssh")
	os.MkdirAll(elsewhere, 0o700)
	os.Symlink(elsewhere, filepath.Join(l.home, ".ssh"))
	os.Symlink(filepath.Join(l.root, "mnt", "aws"), filepath.Join(l.home, ".aws")) // dangling
	os.Symlink(l.extra, filepath.Join(l.root, "extra-link"))
	r := l.run()
	r.Write = []string{filepath.Join(l.root, "extra-link")}
	p, err := ForAgent(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{elsewhere, filepath.Join(l.root, "mnt", "aws")} {
		if !slices.Contains(p.Deny, want) {
			t.Errorf("Deny lacks %s: %v", want, p.Deny)
		}
	}
	if !slices.Contains(p.Write, l.extra) {
		t.Errorf("Write = %v, want the link's target %s", p.Write, l.extra)
	}
}

// What a run may not be allowed to write, or hide.
func TestForAgentRefuses(t *testing.T) {
	l := newLayout(t)
	for _, tc := range []struct {
		name string
		edit func(*Run)
		want string
	}{
		{"a path that does not exist", func(r *Run) { r.Write = []string{filepath.Join(l.root, "nowhere")} }, "no such file"},
		{"the home directory, which holds git's configuration", func(r *Run) { r.Write = []string{"~"} }, "cannot be writable"},
		{"a credential", func(r *Run) { r.Write = []string{"~/.ssh"} }, "one holds the other"},
		{"the repository, which holds its git dir", func(r *Run) { r.Write = []string{l.repo} }, "cannot be writable"},
		{"the git dir's hooks", func(r *Run) {
			os.MkdirAll(filepath.Join(l.common, "hooks"), 0o755)
			r.Write = []string{filepath.Join(l.common, "hooks")}
		}, "cannot be writable"},
		{"~/.config, which holds git's configuration", func(r *Run) {
			os.MkdirAll(filepath.Join(l.home, ".config", "git"), 0o755)
			r.Write = []string{"~/.config/git"}
		}, "cannot be writable"},
		{"~/.gitconfig", func(r *Run) {
			os.WriteFile(filepath.Join(l.home, ".gitconfig"), nil, 0o644)
			r.Write = []string{"~/.gitconfig"}
		}, "cannot be writable"},
		{"a relative path", func(r *Run) { r.Write = []string{"extra"} }, "not an absolute path"},
		{"the main checkout as the worktree", func(r *Run) { r.Worktree = l.repo }, "a linked worktree"},
		{"a deny over the repository", func(r *Run) { r.Deny = []string{l.repo} }, "must stay readable"},
		{"a deny equal to a writable path", func(r *Run) { r.Deny = []string{l.extra} }, "one holds the other"},
		{"no temporary directory", func(r *Run) { r.TempDir = "" }, "needs the repository's git dir and a temporary directory"},
		{"a relative home", func(r *Run) { r.Home = "home" }, "not an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := l.run()
			tc.edit(&r)
			if _, err := ForAgent(r); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The .git file a program rewrote is put back.
func TestGitFileRestore(t *testing.T) {
	wt := t.TempDir()
	dotgit := filepath.Join(wt, ".git")
	orig := "gitdir: /r/.git/worktrees/wt\n"
	os.WriteFile(dotgit, []byte(orig), 0o644)
	g, err := ReadGitFile(wt)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := g.Restore(); changed || err != nil {
		t.Fatalf("untouched: changed %v, %v", changed, err)
	}
	for _, attack := range []func(){
		func() { os.WriteFile(dotgit, []byte("gitdir: /tmp/evil\n"), 0o644) },
		func() { os.Remove(dotgit); os.Symlink("/tmp/evil", dotgit) },
		func() { os.Remove(dotgit); os.MkdirAll(filepath.Join(dotgit, "hooks"), 0o755) },
		func() { os.Remove(dotgit) },
	} {
		attack()
		changed, err := g.Restore()
		data, _ := os.ReadFile(dotgit)
		if !changed || err != nil || string(data) != orig {
			t.Errorf("after an attack: changed %v, %v, .git holds %q", changed, err, data)
		}
	}
	os.WriteFile(filepath.Join(wt, "x"), nil, 0o644)
	if _, err := ReadGitFile(t.TempDir()); err == nil {
		t.Error("a worktree without .git is read")
	}
}
