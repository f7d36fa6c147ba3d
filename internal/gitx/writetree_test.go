package gitx

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWriteTreeInProcessAgreesWithGit writes the tree of index files that
// real git made, in process, and checks it against git write-tree on the same
// index, with git fsck over what was written; where git must write it (ok
// false), git still can.
func TestWriteTreeInProcessAgreesWithGit(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *testRepo)
		ok    bool
	}{
		{"nothing committed, everything added", func(r *testRepo) {
			r.write("new/dir/e.py", "e\n")
			r.git("add", "-A")
		}, true},
		{"one directory changed after a commit", func(r *testRepo) {
			r.commitAll("base")
			r.write("src/deep/dir/c.py", "changed\n")
			r.git("add", "-A")
		}, true},
		{"names git sorts apart from the tree's order", func(r *testRepo) {
			for _, n := range []string{"a.txt", "a0", "a-b/c", "a b/c", "-lead", ".hidden", "new\nline", "caf\xc3\xa9", "bad\xff", "x;$(y)", "q\"uote", "a/b.c/d", "a/b/e", "a/b-c"} {
				r.write(n, n+"\n")
			}
			r.git("add", "-A")
		}, true},
		{"executable, symbolic link, submodule", func(r *testRepo) {
			r.commitAll("base")
			r.write("run.sh", "#!/bin/sh\n")
			if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
				r.t.Fatal(err)
			}
			if err := os.Symlink("a.txt", filepath.Join(r.dir, "src", "link")); err != nil {
				r.t.Fatal(err)
			}
			r.git("add", "-A")
			head := strings.TrimSpace(r.git("rev-parse", "HEAD"))
			r.git("update-index", "--add", "--cacheinfo", "160000,"+head+",src/sub")
		}, true},
		{"blobs and trees packed, one file changed", func(r *testRepo) {
			r.commitAll("base")
			r.git("gc", "-q")
			r.write("src/deep/dir/d.py", "changed\n")
			r.git("add", "-A")
		}, true},
		{"every tree packed already", func(r *testRepo) {
			r.commitAll("base")
			r.git("gc", "-q")
			r.git("add", "-A")
		}, true},
		{"version 4, skip-worktree", func(r *testRepo) {
			r.commitAll("base")
			r.git("update-index", "--index-version", "4")
			r.git("update-index", "--skip-worktree", "src/b.py")
			r.write("src/new.py", "n\n")
			r.git("add", "-A")
		}, true},
		{"no entries", func(r *testRepo) {
			r.commitAll("base")
			r.git("rm", "-q", "-r", "--cached", ".")
		}, true},
		{"intent to add", func(r *testRepo) {
			r.write("later.py", "l\n")
			r.git("add", "-N", "later.py")
		}, false},
		{"split index", func(r *testRepo) {
			r.git("add", "-A")
			r.git("update-index", "--split-index")
		}, false},
		{"a blob that is not there", func(r *testRepo) {
			r.git("add", "-A")
			r.git("update-index", "--add", "--cacheinfo", "100644,"+strings.Repeat("ab", 20)+",ghost.txt")
		}, false},
		{"core.sharedRepository", func(r *testRepo) {
			r.git("config", "core.sharedRepository", "group")
			r.git("add", "-A")
		}, false},
		{"core.fsync", func(r *testRepo) {
			r.git("config", "core.fsync", "loose-object")
			r.git("add", "-A")
		}, false},
		{"an include that sets core.fsync", func(r *testRepo) {
			r.write(".git/more", "[core]\n\tfsync = all\n")
			r.git("config", "include.path", "more")
			r.git("add", "-A")
		}, false},
		{"an include that sets nothing of ours", func(r *testRepo) {
			r.write(".git/more", "[user]\n\tname = x\n")
			r.git("config", "include.path", "more")
			r.git("add", "-A")
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRepo(t)
			r.write("a.txt", "a\n")
			r.write("src/b.py", "b\n")
			r.write("src/deep/dir/c.py", "c\n")
			r.write("src/deep/dir/d.py", "d\n")
			r.write("z.txt", "z\n")
			tt.setup(r)
			repo, err := Open(context.Background(), r.dir)
			if err != nil {
				t.Fatal(err)
			}
			index := filepath.Join(r.dir, ".git", "index")
			before, _ := os.ReadFile(index)
			got, ok := repo.writeTreeInProcess(index)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
				t.Fatal("the index changed")
			}
			if !ok {
				if tt.name == "a blob that is not there" {
					return // git refuses it too
				}
				got = strings.TrimSpace(r.git("write-tree"))
			}
			if want := strings.TrimSpace(r.git("write-tree")); got != want {
				t.Fatalf("tree = %s, git write-tree = %s", got, want)
			}
			r.git("fsck", "--strict", "--no-dangling", "--no-progress")
			if wt, err := repo.WriteTree(context.Background()); err != nil || wt != got {
				t.Errorf("WriteTree = %s, %v; want %s", wt, err, got)
			}
		})
	}
}

// TestBuildTreesRefuses: indexes git does not write, which only git may judge.
func TestBuildTreesRefuses(t *testing.T) {
	oid := bytes.Repeat([]byte{1}, sha1Size)
	e := func(mode uint32, path string) indexEntry { return indexEntry{mode: mode, oid: oid, path: []byte(path)} }
	tests := []struct {
		name    string
		entries []indexEntry
	}{
		{"out of order", []indexEntry{e(0o100644, "b"), e(0o100644, "a")}},
		{"twice", []indexEntry{e(0o100644, "a"), e(0o100644, "a")}},
		{"a file where a directory is", []indexEntry{e(0o100644, "a"), e(0o100644, "a.txt"), e(0o100644, "a/b")}},
		{"a submodule where a directory is", []indexEntry{e(0o160000, "a"), e(0o100644, "a/b")}},
		{"an empty name", []indexEntry{e(0o100644, "a//b")}},
		{"a leading slash", []indexEntry{e(0o100644, "/a")}},
		{"a trailing slash", []indexEntry{e(0o100644, "a/")}},
		{"a mode git does not write", []indexEntry{e(0o100664, "a")}},
		{"a directory mode", []indexEntry{e(0o040000, "a")}},
		{"a null id", []indexEntry{{mode: 0o100644, oid: make([]byte, sha1Size), path: []byte("a")}}},
		{"intent to add", []indexEntry{{mode: 0o100644, oid: oid, path: []byte("a"), ext: intentToAdd}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if trees, ok := buildTrees(tt.entries); ok {
				t.Errorf("built %d trees", len(trees))
			}
		})
	}
	trees, ok := buildTrees(nil)
	if !ok || len(trees) != 1 || hex.EncodeToString(trees[0].id[:]) != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("no entries: %v %v, want the empty tree", trees, ok)
	}
}

// TestPackIndexesFindEveryPackedObject looks up every object of a packed
// repository, and ids that are in no pack.
func TestPackIndexesFindEveryPackedObject(t *testing.T) {
	r := newTestRepo(t)
	for i := range 300 {
		r.write(filepath.Join("d", strings.Repeat("x", i%7), "f"+string(rune('a'+i%26))+strings.Repeat("y", i%40)+strconv.Itoa(i)), strings.Repeat("z", i))
	}
	r.commitAll("base")
	r.git("gc", "-q")
	p, err := openPackIndexes(filepath.Join(r.dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	ids := strings.Fields(r.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	if len(ids) < 300 {
		t.Fatalf("only %d objects", len(ids))
	}
	for _, id := range ids {
		b, _ := hex.DecodeString(id)
		if !p.has(b) {
			t.Fatalf("%s not found", id)
		}
		b[sha1Size-1] ^= 1
		if p.has(b) && !strings.Contains(strings.Join(ids, " "), hex.EncodeToString(b)) {
			t.Fatalf("%x found", b)
		}
	}
	for _, id := range []string{strings.Repeat("00", 20), strings.Repeat("ff", 20)} {
		b, _ := hex.DecodeString(id)
		if p.has(b) {
			t.Errorf("%s found", id)
		}
	}
}

// A tree that is only in a cruft pack (git gc with gc.cruftPacks, the
// default from git 2.40) is not fresh to git: git write-tree writes it loose
// again, dated now, because a cruft pack's objects expire by the dates in its
// .mtimes file, not by the pack's. The tree written in process only dates
// the pack: a gc expiring cruft objects while the tests run (the draft
// commit is written after them) deletes the tree the commit will name.
func TestWriteTreeInProcessRewritesTreesOnlyInACruftPack(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	r.write("x.txt", "x\n")
	r.git("add", "x.txt")
	tree := strings.TrimSpace(r.git("write-tree"))
	r.git("reset", "-q")
	loose := filepath.Join(r.dir, ".git", "objects", tree[:2], tree[2:])
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(loose, old, old); err != nil {
		t.Fatal(err)
	}
	r.git("repack", "--cruft", "-d", "-q")
	if _, err := os.Stat(loose); err == nil {
		t.Fatal("the tree is still loose")
	}
	r.git("add", "x.txt")
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := repo.writeTreeInProcess(filepath.Join(r.dir, ".git", "index"))
	if !ok || got != tree {
		t.Fatalf("writeTreeInProcess = %s, %v; want %s", got, ok, tree)
	}
	// a gc expiring unreachable objects older than a week, as one may run
	// while the tests do
	r.git("repack", "--cruft", "--cruft-expiration=1.week.ago", "-d", "-q")
	if err := exec.Command("git", "-C", r.dir, "cat-file", "-e", tree).Run(); err != nil {
		t.Errorf("the tree written in process was pruned by a gc that spares git write-tree's: %v", err)
	}
}
