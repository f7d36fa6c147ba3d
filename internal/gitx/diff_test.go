package gitx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// testRepo is a throw-away repository with an isolated git configuration.
type testRepo struct {
	t   *testing.T
	dir string
}

func isolateGit(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
		"GIT_DIR": "", "GIT_WORK_TREE": "", "GIT_INDEX_FILE": "",
	} {
		t.Setenv(k, v)
	}
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	os.Unsetenv("GIT_INDEX_FILE")
	return home
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	isolateGit(t)
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *testRepo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) commitAll(msg string) {
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
}

// staged diffs the index against HEAD (or the empty tree) as the gate does.
func (r *testRepo) staged(dir string) map[string]FileDiff {
	r.t.Helper()
	repo, base, tree := r.index(dir)
	diffs, err := repo.DiffTrees(context.Background(), base, tree)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]FileDiff{}
	for _, d := range diffs {
		out[d.Path] = d
	}
	return out
}

// index opens the repository in dir and gives the staged change: HEAD (or
// the empty tree) and the tree of the index.
func (r *testRepo) index(dir string) (repo *Repo, base, tree string) {
	r.t.Helper()
	ctx := context.Background()
	repo, err := Open(ctx, dir)
	if err != nil {
		r.t.Fatal(err)
	}
	tree, err = repo.WriteTree(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	base, ok, err := repo.Head(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if !ok {
		if base, err = repo.EmptyTree(ctx); err != nil {
			r.t.Fatal(err)
		}
	}
	return repo, base, tree
}

func lines(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// hostileConfig is what a user might have that changes porcelain diff output.
var hostileConfig = [][2]string{
	{"color.ui", "always"}, {"color.diff", "always"}, {"diff.noprefix", "true"},
	{"diff.mnemonicPrefix", "true"}, {"diff.external", "/bin/false"}, {"diff.relative", "true"},
	{"core.quotePath", "false"}, {"diff.algorithm", "histogram"}, {"diff.renames", "false"},
	{"diff.context", "0"}, {"diff.suppressBlankEmpty", "true"}, {"core.pager", "false"},
}

// T015: names with shell metacharacters, quotes, newlines, tabs, non-UTF-8 bytes and
// a leading dash are analysed exactly, under every hostile setting, from a subdirectory.
func TestT015HostileNamesAndConfig(t *testing.T) {
	r := newTestRepo(t)
	for _, kv := range hostileConfig {
		r.git("config", kv[0], kv[1])
	}
	t.Setenv("GIT_EXTERNAL_DIFF", "/bin/false")
	t.Setenv("GIT_DIFF_OPTS", "--unified=0")
	names := []string{
		"test; rm -rf.py", "$(touch pwned).txt", "`touch pwned2`.md", "-rf.txt", "--help",
		"sp ace's \"q\".txt", "new\nline.txt", "tab\there.txt", "caf\xe9.txt", "日本語.txt",
		"back\\slash.txt", "trailing space ", "sub dir/a b.txt", "\u202eevil.txt",
	}
	for _, n := range names {
		r.write(n, lines(20, "line"))
	}
	r.write("sub/keep.txt", "x\n")
	r.commitAll("init")
	for _, n := range names {
		r.write(n, lines(5, "line"))
	}
	r.git("add", "-A")
	got := r.staged(filepath.Join(r.dir, "sub"))
	if len(got) != len(names) {
		t.Fatalf("got %d files, want %d: %q", len(got), len(names), keys(got))
	}
	for _, n := range names {
		d, ok := got[n]
		if !ok {
			t.Errorf("missing %q; got %q", n, keys(got))
			continue
		}
		if d.Status != 'M' || d.LinesBefore != 20 || d.Deleted != 15 || d.Added != 0 {
			t.Errorf("%q: %+v", n, d)
		}
	}
	for _, p := range []string{"pwned", "pwned2", "sub/pwned"} {
		if _, err := os.Stat(filepath.Join(r.dir, p)); err == nil {
			t.Errorf("a file name was run by a shell: %s exists", p)
		}
	}
}

func TestDiffTreesEdgeCases(t *testing.T) {
	t.Run("empty repository, nothing staged", func(t *testing.T) {
		r := newTestRepo(t)
		if got := r.staged(r.dir); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	})
	t.Run("no HEAD yet: compared with the empty tree", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("a.py", lines(12, "x"))
		r.git("add", "-A")
		d := r.staged(r.dir)["a.py"]
		if d.Status != 'A' || d.Added != 12 || d.LinesBefore != 0 {
			t.Errorf("%+v", d)
		}
	})
	t.Run("attributes cannot make text binary, bytes make binary", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("a.py", lines(20, "x"))
		r.write("late.bin", lines(3000, "y")) // a NUL past git's 8000-byte window: text
		r.write("b.bin", "a\x00b\n")
		r.write("run.sh", lines(30, "echo"))
		r.commitAll("init")
		r.write("run.sh", "# \x00\n"+lines(30, "echo")) // a NUL in a script: binary to git, text to read
		r.write("a.py", lines(3, "x"))
		r.write("late.bin", lines(3000, "y")+"\x00\n")
		r.write("b.bin", "a\x00c\n")
		r.write(".git/info/attributes", "* binary\n")
		r.git("add", "-A")
		got := r.staged(r.dir)
		if d := got["a.py"]; d.Binary || d.Deleted != 17 || d.LinesBefore != 20 {
			t.Errorf("a.py %+v", d)
		}
		if d := got["late.bin"]; d.Binary || d.Added != 1 || d.LinesBefore != 3000 {
			t.Errorf("late.bin %+v", d)
		}
		if d := got["b.bin"]; !d.Binary || d.Textual || d.Added != 0 || d.Deleted != 0 || d.LinesBefore != 0 {
			t.Errorf("b.bin %+v", d)
		}
		if d := got["run.sh"]; !d.Binary || !d.Textual {
			t.Errorf("run.sh %+v", d)
		}
		if d := got["late.bin"]; d.Textual {
			t.Errorf("late.bin is text, not 'textual binary': %+v", d)
		}
	})
	t.Run("only an initial commit, nothing staged", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("a", "a\n")
		r.commitAll("init")
		if got := r.staged(r.dir); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	})
	t.Run("every file deleted", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("a", lines(3, "a"))
		r.write("d/b", lines(7, "b"))
		r.commitAll("init")
		r.git("rm", "-q", "-r", ".")
		got := r.staged(r.dir)
		if got["a"].Status != 'D' || got["a"].LinesBefore != 3 || got["d/b"].LinesBefore != 7 || len(got) != 2 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("a 1 MB single-line file", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("big.min.js", strings.Repeat("a", 1<<20)+"\n")
		r.commitAll("init")
		r.write("big.min.js", strings.Repeat("b", 1<<20)+"\n")
		r.git("add", "-A")
		d := r.staged(r.dir)["big.min.js"]
		if d.LinesBefore != 1 || d.Added != 1 || d.Deleted != 1 || d.Binary {
			t.Errorf("%+v", d)
		}
	})
	t.Run("CRLF and no final newline", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("crlf.txt", "a\r\nb\r\nc\r\n")
		r.write("noeol.txt", "a\nb")
		r.commitAll("init")
		r.write("crlf.txt", "a\r\nB\r\nc\r\n")
		r.write("noeol.txt", "a\nb\nc")
		r.git("add", "-A")
		got := r.staged(r.dir)
		if d := got["crlf.txt"]; d.LinesBefore != 3 || d.Added != 1 || d.Deleted != 1 {
			t.Errorf("crlf %+v", d)
		}
		if d := got["noeol.txt"]; d.LinesBefore != 2 || d.Added != 2 || d.Deleted != 1 {
			t.Errorf("noeol %+v", d)
		}
	})
	t.Run("rename, copy, mode, type change, binary, submodule", func(t *testing.T) {
		r := newTestRepo(t)
		r.write("pkg/old.py", lines(40, "l"))
		r.write("mode.sh", "echo\n")
		r.write("link", "target\n")
		r.write("logo.bin", "\x00\x01\x02binary")
		r.write("same.txt", lines(9, "s"))
		r.commitAll("init")
		r.git("update-index", "--add", "--cacheinfo", "160000,"+oidA+",sub")
		r.git("commit", "-q", "-m", "sub")
		r.git("mv", "pkg/old.py", "pkg/new.py")
		r.write("pkg/new.py", strings.Replace(lines(40, "l"), "l 7\n", "l seven\n", 1))
		r.git("update-index", "--chmod=+x", "mode.sh")
		os.Remove(filepath.Join(r.dir, "link"))
		os.Symlink("mode.sh", filepath.Join(r.dir, "link"))
		r.write("logo.bin", "\x00\x03\x04binary!")
		r.git("add", "pkg", "link", "logo.bin")
		r.git("mv", "same.txt", "moved.txt")
		r.git("update-index", "--cacheinfo", "160000,"+oidB+",sub")
		got := r.staged(r.dir)
		if d := got["pkg/new.py"]; d.Status != 'R' || d.OldPath != "pkg/old.py" || d.LinesBefore != 40 || d.Added != 1 || d.Deleted != 1 {
			t.Errorf("rename %+v", d)
		}
		if d := got["mode.sh"]; d.Status != 'M' || d.OldMode != ModeRegular || d.NewMode != ModeExec || d.Added+d.Deleted != 0 || d.LinesBefore != 1 {
			t.Errorf("mode %+v", d)
		}
		if d := got["link"]; d.Status != 'T' || d.LinesBefore != 1 || d.Deleted != 1 || d.Added != 1 {
			t.Errorf("type change %+v", d)
		}
		if d := got["logo.bin"]; !d.Binary || d.Status != 'M' {
			t.Errorf("binary %+v", d)
		}
		if d := got["sub"]; d.OldMode != ModeGitlink || d.Status != 'M' {
			t.Errorf("submodule %+v", d)
		}
		if d := got["moved.txt"]; d.Status != 'R' || d.Score != 100 || d.LinesBefore != 9 || d.Added+d.Deleted != 0 {
			t.Errorf("pure rename (counted by cat-file) %+v", d)
		}
		if len(got) != 6 {
			t.Errorf("got %q", keys(got))
		}
	})
}

func TestOpenErrors(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	if _, err := Open(ctx, t.TempDir()); err != ErrNotRepository {
		t.Errorf("outside a repository: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Errorf("a missing directory opened")
	}
	r := newTestRepo(t)
	if _, err := Open(ctx, filepath.Join(r.dir, ".git")); err == nil {
		t.Errorf("inside .git opened as a working tree")
	}
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.CommonDir != filepath.Join(r.dir, ".git") || repo.GitDir != repo.CommonDir || !filepath.IsAbs(repo.Top) {
		t.Errorf("%+v", repo)
	}
}

func TestUnmergedIndex(t *testing.T) {
	r := newTestRepo(t)
	r.write("a", "base\n")
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "other")
	r.write("a", "other\n")
	r.commitAll("other")
	r.git("checkout", "-q", "main")
	r.write("a", "main\n")
	r.commitAll("main")
	cmd := exec.Command("git", "merge", "-q", "other")
	cmd.Dir = r.dir
	cmd.Run() // conflicts on purpose
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.WriteTree(context.Background()); err != ErrUnmerged {
		t.Errorf("write-tree on a conflicted index: %v", err)
	}
}

func keys(m map[string]FileDiff) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// OpenTop finds what rev-parse finds, for a repository and a linked worktree.
func TestOpenTopAgreesWithRevParse(t *testing.T) {
	r := newTestRepo(t)
	r.write("a", "a\n")
	r.commitAll("init")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", wt, "-b", "wt")
	ctx := context.Background()
	for _, dir := range []string{r.dir, wt} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			got, err := OpenTop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Top != want.Top || got.GitDir != want.GitDir || got.CommonDir != want.CommonDir {
				t.Errorf("OpenTop %+v\nrev-parse %+v", got, want)
			}
		})
	}
	t.Run("not at a top", func(t *testing.T) {
		t.Chdir(t.TempDir())
		if _, err := OpenTop(ctx); err != ErrNotRepository {
			t.Errorf("err = %v", err)
		}
	})
}

func TestDiffTexts(t *testing.T) {
	r := newTestRepo(t)
	r.git("config", "diff.noprefix", "true")
	r.git("config", "color.ui", "always")
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := repo.DiffTexts(context.Background(), "src/state.py", []byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- a/src/state.py\n", "+++ b/src/state.py\n", "-b\n", "+B\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("missing %q in\n%s", want, d)
		}
	}
	if strings.Contains(d, "\x1b[") || strings.Contains(d, os.TempDir()) {
		t.Errorf("colour or temp paths leaked:\n%s", d)
	}
	if d, err := repo.DiffTexts(context.Background(), "x", []byte("same\n"), []byte("same\n")); err != nil || d != "" {
		t.Errorf("identical: %q %v", d, err)
	}
}
