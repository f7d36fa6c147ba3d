package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseIndex checks the in-process index reader against git's own answers
// (write-tree, ls-files -v) on the same index files, in each format git writes.
func TestParseIndex(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(r *testRepo)
		ok      bool // ParseIndex understands it
		hasTree bool
	}{
		{"version 2, cache-tree valid", func(r *testRepo) { r.git("write-tree") }, true, true},
		{"version 2, cache-tree invalidated by add", func(r *testRepo) {
			r.write("src/new file.py", "x\n")
			r.git("add", "-A")
		}, true, false},
		{"version 3, skip-worktree and assume-unchanged", func(r *testRepo) {
			r.git("update-index", "--skip-worktree", "a.txt")
			r.git("update-index", "--assume-unchanged", "src/b.py")
			r.git("write-tree")
		}, true, true},
		{"version 4, prefix-compressed names", func(r *testRepo) {
			r.git("update-index", "--index-version", "4")
			r.git("update-index", "--skip-worktree", "src/deep/dir/c.py")
			r.git("write-tree")
		}, true, true},
		{"split index", func(r *testRepo) { r.git("update-index", "--split-index") }, false, false},
		{"unmerged entries", func(r *testRepo) {
			r.git("checkout", "-q", "-b", "other")
			r.write("a.txt", "other\n")
			r.commitAll("other")
			r.git("checkout", "-q", "main")
			r.write("a.txt", "main\n")
			r.commitAll("main")
			cmd := []string{"merge", "-q", "other"}
			_ = cmdIgnoringFailure(r, cmd...)
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRepo(t)
			r.write("a.txt", "a\n")
			r.write("src/b.py", "b\n")
			r.write("src/deep/dir/c.py", "c\n")
			r.write("src/deep/dir/d.py", "d\n")
			r.write("z.txt", "z\n")
			r.write(".gitattributes", "*.bin -text\n")
			r.write("src/deep/.gitattributes", "*.py ident\n")
			r.write("src/not.gitattributes", "decoy\n")
			r.commitAll("base")
			tt.setup(r)
			data, err := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			info, ok := ParseIndex(data)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got := info.Tree != ""; got != tt.hasTree {
				t.Fatalf("tree %q, want one: %v", info.Tree, tt.hasTree)
			}
			if tt.hasTree {
				if want := strings.TrimSpace(r.git("write-tree")); info.Tree != want {
					t.Errorf("tree = %s, git write-tree = %s", info.Tree, want)
				}
			}
			assumed, skipped := FlaggedEntries([]byte(r.git("ls-files", "-v", "-z")))
			if !reflect.DeepEqual(nonNil(info.Assumed), nonNil(assumed)) || !reflect.DeepEqual(nonNil(info.Skipped), nonNil(skipped)) {
				t.Errorf("flags = %q %q, git ls-files -v = %q %q", info.Assumed, info.Skipped, assumed, skipped)
			}
			if want := stagedAttributes(r); !reflect.DeepEqual(info.Attributes, want) {
				t.Errorf("attributes = %v, git ls-files -s = %v", info.Attributes, want)
			}
			repo, err := Open(context.Background(), r.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := repo.IndexTree(context.Background()); err != nil || got != strings.TrimSpace(r.git("write-tree")) {
				t.Errorf("IndexTree = %s, %v", got, err)
			}
		})
	}
}

// stagedAttributes are the .gitattributes entries git ls-files -s lists.
func stagedAttributes(r *testRepo) []TreeEntry {
	var out []TreeEntry
	for _, rec := range splitZ([]byte(r.git("ls-files", "-s", "-z"))) {
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !IsAttributesFile(path) {
			continue
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		out = append(out, TreeEntry{Mode: uint32(mode), Type: "blob", OID: f[1], Path: path})
	}
	return out
}

func TestParseIndexRefusesDamage(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	r.git("write-tree")
	data, err := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ParseIndex(data); !ok {
		t.Fatal("a good index was refused")
	}
	for i := range data {
		bad := slices.Clone(data)
		bad[i] ^= 0x40
		if _, ok := ParseIndex(bad); ok {
			t.Fatalf("a flipped byte at %d passed", i)
		}
	}
	for n := 0; n < len(data); n++ {
		if _, ok := ParseIndex(data[:n]); ok {
			t.Fatalf("a cut at %d passed", n)
		}
	}
}

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseIndex(b) // must not panic
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func cmdIgnoringFailure(r *testRepo, args ...string) error {
	r.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = r.dir
	return c.Run()
}
