package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The trees a gate diffs and the configuration it reads are read in process
// when their objects are loose; what it reads is what git reads: diff-tree
// -r --raw for every kind of change, cat-file blob for every kind of path.
func TestTreesInProcessAgreeWithGit(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	files := map[string]string{
		"a.txt": "a\n", "a.b": "dot\n", "a-b": "dash\n", "a/x": "x\n", "a/y/z": "z\n", "dir/gone": "g\n",
		"file becomes dir": "f\n", "kept/k": "k\n", "mode": "m\n", "link target": "t\n", "name with\nnewline": "n\n",
		"ünï": "u\n", ".git-tdd.toml": "[test]\n",
	}
	for name, content := range files {
		r.write(name, content)
	}
	r.commitAll("base")
	base := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	r.git("rm", "-q", "-r", "dir", "file becomes dir")
	r.write("file becomes dir/inside", "i\n")
	r.write("a/y/z", "z2\n")
	r.write("a/new/deep", "d\n")
	r.write("a0", "after a/\n")
	if err := os.Chmod(filepath.Join(r.dir, "mode"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(r.dir, "link target"))
	if err := os.Symlink("a.txt", filepath.Join(r.dir, "link target")); err != nil {
		t.Fatal(err)
	}
	r.commitAll("next")
	r.git("update-index", "--add", "--cacheinfo", "160000,"+base+",sub")
	r.git("commit", "-qm", "a submodule")
	next := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	tree := strings.TrimSpace(r.git("rev-parse", "HEAD^{tree}"))
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	gitDiff := func(a, b string) []RawEntry {
		out, err := exec.Command("git", "-C", r.dir, "diff-tree", "-r", "-z", "--raw", "--no-abbrev", "--no-renames", "--no-relative", a, b).Output()
		if err != nil {
			t.Fatal(err)
		}
		entries, err := ParseRaw(out)
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
	for _, pair := range [][2]string{{base, next}, {next, base}, {base, tree}, {tree, base}} {
		got, ok := repo.changedBlobsInProcess(pair[0], pair[1])
		if !ok {
			t.Fatalf("%s..%s: not read in process", pair[0], pair[1])
		}
		if want := gitDiff(pair[0], pair[1]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s..%s:\n got %+v\nwant %+v", pair[0], pair[1], got, want)
		}
	}
	for _, name := range []string{".git-tdd.toml", "a.txt", "a/y/z", "a/new/deep", "a", "a/y", "missing", "a/missing", "a.txt/under",
		"link target", "sub", "name with\nnewline", "ünï", "mode", "dir/gone", "file becomes dir/inside"} {
		for _, rev := range []string{base, next, tree} {
			data, ok, known := repo.fileInProcess(rev, name)
			if !known {
				t.Fatalf("%s:%q: not read in process", rev, name)
			}
			out, err := exec.Command("git", "-C", r.dir, "cat-file", "blob", rev+":"+name).Output()
			if wantOK := err == nil; ok != wantOK || ok && string(data) != string(out) {
				t.Errorf("%s:%q: got %q %v, git %q %v", rev, name, data, ok, out, err)
			}
		}
	}
	// packed, the objects are git's to read
	r.git("gc", "-q")
	if _, ok := repo.changedBlobsInProcess(base, next); ok {
		t.Error("packed trees were read in process")
	}
	if _, _, known := repo.fileInProcess(base, "a.txt"); known {
		t.Error("a packed tree was read in process")
	}
	if got, err := repo.ChangedBlobs(ctx, base, next); err != nil || !reflect.DeepEqual(got, gitDiff(base, next)) {
		t.Errorf("packed: ChangedBlobs %+v %v", got, err)
	}
}

// merge-base is answered in process where one commit is an ancestor of the
// other through loose commits, and by git otherwise; the answers agree.
func TestMergeBaseInProcessAgreesWithGit(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	commit := func(name string) string {
		r.write(name, name+"\n")
		r.commitAll(name)
		return strings.TrimSpace(r.git("rev-parse", "HEAD"))
	}
	base := commit("base")
	r.git("switch", "-q", "-c", "side")
	side1 := commit("side1")
	r.git("switch", "-q", "main")
	main1 := commit("main1")
	r.git("switch", "-q", "side")
	r.git("merge", "-q", "--no-edit", "main")
	side2 := commit("side2")
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	gitBase := func(a, b string) string {
		out, err := exec.Command("git", "-C", r.dir, "merge-base", a, b).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tc := range []struct {
		a, b   string
		inProc bool
	}{
		{"refs/heads/main", side2, true}, {base, side2, true}, {side2, base, true}, {side1, side1, true},
		{main1, side1, false}, {"refs/heads/main", "refs/heads/side", true}, {"main", side2, false},
	} {
		got, ok := repo.mergeBaseInProcess(tc.a, tc.b)
		if ok != tc.inProc {
			t.Errorf("%s %s: in process %v, want %v", tc.a, tc.b, ok, tc.inProc)
		}
		if ok && got != gitBase(tc.a, tc.b) {
			t.Errorf("%s %s: %s, git %s", tc.a, tc.b, got, gitBase(tc.a, tc.b))
		}
		if mb, err := repo.MergeBase(ctx, tc.a, tc.b); err != nil || mb != gitBase(tc.a, tc.b) {
			t.Errorf("MergeBase %s %s = %s %v, git %s", tc.a, tc.b, mb, err, gitBase(tc.a, tc.b))
		}
	}
	r.git("gc", "-q")
	if _, ok := repo.mergeBaseInProcess(base, side2); ok {
		t.Error("packed commits walked in process")
	}
}
