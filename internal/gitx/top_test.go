package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Open finds the repository without a git process where it can; where it
// does, its answer is rev-parse's, and where a setting could make git's
// differ (core.worktree, core.bare, an include, git -c, GIT_DIR), it asks
// git.
func TestDiscoverAgreesWithGit(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.git("add", "a.txt")
	r.git("commit", "-qm", "a")
	linked := filepath.Join(t.TempDir(), "linked wt")
	r.git("worktree", "add", "-q", "-b", "side", linked)
	via := filepath.Join(t.TempDir(), "via link")
	if err := os.Symlink(r.dir, via); err != nil {
		t.Fatal(err)
	}
	revParse := func(dir string, env []string) []string {
		cmd := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("rev-parse in %s: %v", dir, err)
		}
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}
	for _, tc := range []struct {
		name string
		dir  string
		env  []string
		fast bool
	}{
		{"main worktree", r.dir, nil, true},
		{"linked worktree", linked, nil, true},
		{"through a symbolic link", via, nil, true},
		{"a subdirectory", filepath.Join(r.dir, "sub"), nil, false},
		{"git -c", r.dir, []string{"GIT_CONFIG_PARAMETERS='core.worktree'='/'"}, false},
		{"GIT_DIR", r.dir, []string{"GIT_DIR=" + filepath.Join(r.dir, ".git")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.MkdirAll(tc.dir, 0o755)
			env := append(os.Environ(), tc.env...)
			d, ok := discover(tc.dir, env)
			if ok != tc.fast {
				t.Fatalf("without git: %v, want %v", ok, tc.fast)
			}
			if !ok {
				return
			}
			want := revParse(tc.dir, tc.env)
			if got := []string{d.GitDir, d.CommonDir, d.Top}; strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got %q\nrev-parse %q", got, want)
			}
		})
	}
	for _, setting := range [][]string{
		{"core.worktree", "/"},
		{"core.bare", "true"},
		{"include.path", "other"},
		{"extensions.worktreeConfig", "true"},
	} {
		t.Run(setting[0], func(t *testing.T) {
			r.git("config", setting[0], setting[1])
			defer r.git("config", "--unset", setting[0])
			if _, ok := discover(r.dir, os.Environ()); ok {
				t.Errorf("%s set: answered without git", setting[0])
			}
			if _, ok := discover(linked, os.Environ()); ok {
				t.Errorf("%s set: answered without git in the linked worktree", setting[0])
			}
		})
	}
	// what git does with core.bare, Open does: refuses to find a work tree
	r.git("config", "core.bare", "true")
	if _, err := Open(context.Background(), r.dir); err == nil {
		t.Error("core.bare = true: Open found a work tree")
	}
}

// Stage's private index is dated as the index it copies: git reads again a
// file that changed in the second its index was written (racily clean), and
// a copy dated now made a same-size change in that second look unchanged, so
// its old blob was staged (tdd_merge_symbols under load: green committed a
// tree without the change it tested).
func TestCopyIndexKeepsItsDate(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index")
	if err := os.WriteFile(index, []byte("DIRC..."), 0o644); err != nil {
		t.Fatal(err)
	}
	written := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(index, written, written); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{index, filepath.Join(dir, "none")} {
		dst, err := os.CreateTemp(dir, "copy-*")
		if err != nil {
			t.Fatal(err)
		}
		if err := copyIndex(dst, src); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(dst.Name())
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(dst.Name())
		switch {
		case src == index && (!fi.ModTime().Equal(written) || string(data) != "DIRC..."):
			t.Errorf("copy dated %v holding %q", fi.ModTime(), data)
		case src != index && len(data) != 0:
			t.Errorf("no index, a copy holding %q", data)
		}
	}
}
