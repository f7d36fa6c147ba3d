package gitx

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestShards(t *testing.T) {
	e := func(old, path string) RawEntry { return RawEntry{OldPath: old, Path: path, Status: 'M'} }
	tests := []struct {
		name   string
		listed []RawEntry
		n      int
		want   [][]string
	}{
		{"balanced by size", []RawEntry{e("a/1", "a/1"), e("a/2", "a/2"), e("a/3", "a/3"), e("b/1", "b/1"), e("c/1", "c/1"), e("root.txt", "root.txt")}, 2,
			[][]string{{"a"}, {"b", "c", "root.txt"}}},
		{"a rename across directories keeps both sides together", []RawEntry{e("a/1", "a/1"), e("a/2", "a/2"), e("b/x", "c/x"), e("d/1", "d/1")}, 2,
			[][]string{{"a"}, {"b", "c", "d"}}},
		{"one directory: no split", []RawEntry{e("a/1", "a/1"), e("a/2", "a/2")}, 2, nil},
		{"one core", []RawEntry{e("a/1", "a/1"), e("b/2", "b/2")}, 1, nil},
	}
	for _, tt := range tests {
		got := Shards(tt.listed, tt.n)
		for _, s := range got {
			sortStrings(s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Shards = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestDiffShardedIsWhole: the sharded diff of a large change is exactly the
// one diff-tree's, renames and copies across directories, root files, a
// deletion, a type change and binaries included.
func TestDiffShardedIsWhole(t *testing.T) {
	r := newTestRepo(t)
	for d := 0; d < 6; d++ {
		for f := 0; f < 110; f++ {
			r.write(fmt.Sprintf("dir%d/f%03d.py", d, f), lines(10+f%7, fmt.Sprintf("d%d f%d", d, f)))
		}
	}
	r.write("root.txt", lines(5, "root"))
	r.write("moveme/long.py", lines(60, "a long file that moves"))
	r.write("copysrc/src.py", lines(50, "copied"))
	r.write("gone/x.txt", lines(3, "gone"))
	r.write("bin/logo.bin", "\x00\x01binary")
	r.commitAll("base")
	for d := 0; d < 6; d++ {
		for f := 0; f < 110; f++ {
			r.write(fmt.Sprintf("dir%d/f%03d.py", d, f), lines(5+f%11, fmt.Sprintf("d%d f%d changed", d, f)))
		}
	}
	r.write("root.txt", lines(7, "root"))
	r.git("mv", "moveme/long.py", "dir3/long.py")
	r.write("copysrc/src.py", lines(50, "copied")+"one more\n")
	r.write("dir5/copy.py", lines(50, "copied"))
	r.git("rm", "-q", "gone/x.txt")
	r.write("bin/logo.bin", "\x00\x02binary!")
	r.git("add", "-A")
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := strings.TrimSpace(r.git("write-tree"))
	base := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	// the texts come from the shards, at once, as they come from one diff
	collect := func() (*Texts, map[string]string) {
		var mu sync.Mutex
		got := map[string]string{}
		return &Texts{Want: func(*RawEntry) bool { return true }, Got: func(d *FileDiff, old, new Text) error {
			mu.Lock()
			defer mu.Unlock()
			if _, twice := got[d.Path]; twice {
				t.Errorf("%s: texts handed over twice", d.Path)
			}
			got[d.Path] = string(old.Data) + "|" + string(new.Data)
			return nil
		}}, got
	}
	t.Setenv("GIT_TDD_DIFF_SHARDS", "2")
	shardTexts, fromShards := collect()
	sharded, ok, err := repo.diffSharded(ctx, base, tree, shardTexts)
	if err != nil || !ok {
		t.Fatalf("not sharded: %v %v", ok, err)
	}
	wholeTexts, fromWhole := collect()
	whole, err := repo.diffWhole(ctx, base, tree, nil, wholeTexts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromShards, fromWhole) || len(fromWhole) < 600 {
		t.Errorf("the shards handed over %d texts, one diff %d", len(fromShards), len(fromWhole))
	}
	if !reflect.DeepEqual(sharded, whole) {
		for i := range whole {
			if i < len(sharded) && sharded[i] != whole[i] {
				t.Errorf("%d: sharded %+v, whole %+v", i, sharded[i], whole[i])
			}
		}
		t.Fatalf("sharded %d files, whole %d", len(sharded), len(whole))
	}
	found := map[byte]int{}
	for _, d := range whole {
		found[d.Status]++
	}
	if found['R'] != 1 || found['D'] != 1 || found['M'] < 600 {
		t.Errorf("the change is not what the test means: %v", found)
	}
}
