package gitx

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The two versions of a file come back from its whole-file patch exactly,
// the missing final newline of either side included.
func TestRebuildTexts(t *testing.T) {
	hdr := "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n"
	tests := []struct {
		name, patch, old, new string
		limit                 int
	}{
		{"a change in the middle", hdr + "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nb\nc\n", "a\nB\nc\n", 0},
		{"an empty line of context", hdr + "@@ -1,3 +1,2 @@\n a\n\n-c\n", "a\n\nc\n", "a\n\n", 0},
		{"no final newline on the old side", hdr + "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb", "a\nb\n", 0},
		{"no final newline on the new side", hdr + "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb\n", "a\nb", 0},
		{"no final newline on either", hdr + "@@ -1,2 +1,3 @@\n+z\n a\n b\n\\ No newline at end of file\n", "a\nb", "z\na\nb", 0},
		{"over the limit", hdr + "@@ -1,2 +1,1 @@\n-aaaa\n-bbbb\n+c\n", "", "c\n", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tp textPair
			tp.reset(tt.limit)
			err := ScanPatch(strings.NewReader(tt.patch), Visitor{
				Line: func(s *Section, l Line) error { tp.add(l); return nil },
				Done: func(s *Section) error { tp.section(s); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			old, new := tp.texts()
			if string(old.Data) != tt.old || string(new.Data) != tt.new || old.Partial || new.Partial {
				t.Errorf("old %q new %q (partial %v %v), want %q %q", old.Data, new.Data, old.Partial, new.Partial, tt.old, tt.new)
			}
			if old.Over != (tt.limit > 0) || new.Over {
				t.Errorf("over: %v %v", old.Over, new.Over)
			}
		})
	}
	t.Run("a line longer than MaxLine is not whole", func(t *testing.T) {
		var tp textPair
		tp.reset(0)
		long := strings.Repeat("x", MaxLine+1)
		ScanPatch(strings.NewReader(hdr+"@@ -1 +1 @@\n-"+long+"\n+y\n"), Visitor{
			Line: func(s *Section, l Line) error { tp.add(l); return nil },
			Done: func(s *Section) error { tp.section(s); return nil },
		})
		if old, new := tp.texts(); !old.Partial || new.Partial {
			t.Errorf("partial: %v %v", old.Partial, new.Partial)
		}
	})
	t.Run("two hunks are not the whole file", func(t *testing.T) {
		var tp textPair
		tp.reset(0)
		ScanPatch(strings.NewReader(hdr+"@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n"), Visitor{
			Line: func(s *Section, l Line) error { tp.add(l); return nil },
			Done: func(s *Section) error { tp.section(s); return nil },
		})
		if old, new := tp.texts(); !old.Partial || !new.Partial {
			t.Errorf("partial: %v %v", old.Partial, new.Partial)
		}
	})
}

// DiffTreesTexts hands over the texts of the files asked for, as git stores
// them; the line counts are those DiffTrees gives.
func TestDiffTreesTexts(t *testing.T) {
	r := newTestRepo(t)
	files := map[string]string{
		"mod.py":    "a\nb\nc",
		"gone.py":   "def f():\n    pass\n",
		"ren/a.py":  lines(30, "r"),
		"link.py":   "x = 1\n",
		"same.txt":  lines(5, "s"),
		"mode.py":   "m\n",
		"skip.txt":  "not wanted\n",
		"logo.py":   "\x00\x01binary",
		"long.py":   strings.Repeat("y", MaxLine+10) + "\n",
		"big.py":    lines(30000, "big"),
		"crlf.py":   "a\r\nb\r\n",
		"empty.py":  "",
		"nochg.py":  "same\n",
		"addmod.py": "1\n",
	}
	for p, c := range files {
		r.write(p, c)
	}
	r.commitAll("init")
	r.write("mod.py", "a\nB\nc\n")
	os.Remove(filepath.Join(r.dir, "gone.py"))
	r.git("mv", "ren/a.py", "ren/b.py")
	r.write("ren/b.py", strings.Replace(lines(30, "r"), "r 3\n", "r three\n", 1))
	os.Remove(filepath.Join(r.dir, "link.py"))
	os.Symlink("mod.py", filepath.Join(r.dir, "link.py"))
	r.git("mv", "same.txt", "moved.txt")
	r.git("update-index", "--chmod=+x", "mode.py")
	r.write("skip.txt", "changed\n")
	r.write("logo.py", "\x00\x02binary!")
	r.write("long.py", strings.Repeat("z", MaxLine+10)+"\n")
	r.write("big.py", lines(30001, "big"))
	r.write("crlf.py", "a\r\nB\r\n")
	r.write("empty.py", "now\n")
	r.write("new.py", "class G:\n    x = [1, 2, 3]\n")
	r.git("add", "-A")

	ctx := context.Background()
	repo, base, tree := r.index(r.dir)
	got, entries := map[string][2]Text{}, map[string]RawEntry{}
	diffs, err := repo.DiffTreesTexts(ctx, base, tree, &Texts{
		Want:  func(e *RawEntry) bool { return e.Path != "skip.txt" },
		Limit: 200000,
		Got: func(d *FileDiff, old, new Text) error {
			entries[d.Path] = d.RawEntry
			got[d.Path] = [2]Text{old, new}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := repo.DiffTrees(ctx, base, tree); len(plain) != len(diffs) {
		t.Fatalf("%d files, DiffTrees says %d", len(diffs), len(plain))
	}
	for _, d := range diffs {
		if e, ok := entries[d.Path]; ok && e != d.RawEntry {
			t.Errorf("texts of %s came with the entry %+v, not %+v", d.Path, e, d.RawEntry)
		}
	}
	text := func(path string, side int) string {
		tx, ok := got[path]
		if !ok {
			t.Errorf("%s: no texts", path)
		}
		return string(tx[side].Data)
	}
	for _, c := range []struct{ path, old, new string }{
		{"mod.py", "a\nb\nc", "a\nB\nc\n"},
		{"gone.py", "def f():\n    pass\n", ""},
		{"ren/b.py", lines(30, "r"), strings.Replace(lines(30, "r"), "r 3\n", "r three\n", 1)},
		{"link.py", "x = 1\n", "mod.py"},
		{"crlf.py", "a\r\nb\r\n", "a\r\nB\r\n"},
		{"empty.py", "", "now\n"},
		{"new.py", "", "class G:\n    x = [1, 2, 3]\n"},
	} {
		if o, n := text(c.path, 0), text(c.path, 1); o != c.old || n != c.new {
			t.Errorf("%s: old %q new %q, want %q %q", c.path, o, n, c.old, c.new)
		}
	}
	for _, p := range []string{"skip.txt", "moved.txt", "mode.py", "logo.py"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s: texts without a change of text, or not asked for", p)
		}
	}
	if tx := got["long.py"]; !tx[0].Partial || !tx[1].Partial {
		t.Errorf("long.py: a line over MaxLine must mark its texts partial: %v %v", tx[0].Partial, tx[1].Partial)
	}
	if tx := got["big.py"]; !tx[0].Over || !tx[1].Over || tx[0].Data != nil {
		t.Errorf("big.py: over the limit: %v %v, %d bytes", tx[0].Over, tx[1].Over, len(tx[0].Data))
	}
}

// BlobTexts reads whole blobs in one cat-file stream, dropping those over the limit.
func TestBlobTexts(t *testing.T) {
	r := newTestRepo(t)
	r.write("a", "alpha\n")
	r.write("b", strings.Repeat("b", 100))
	r.write("c", "")
	r.commitAll("init")
	oids := strings.Fields(r.git("rev-parse", "HEAD:a", "HEAD:b", "HEAD:c"))
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = repo.BlobTexts(context.Background(), oids, 50, func(i int, tx Text) error {
		got = append(got, strings.Join([]string{oids[i][:7], string(tx.Data), boolStr(tx.Over, "over")}, "|"))
		return nil
	})
	want := oids[0][:7] + "|alpha\n|-," + oids[1][:7] + "||over," + oids[2][:7] + "||-"
	if err != nil || strings.Join(got, ",") != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	if err := repo.BlobTexts(context.Background(), []string{oidA}, 50, func(int, Text) error { return nil }); err == nil {
		t.Errorf("a missing object is an error")
	}
}

func TestLeaveCoresRestores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	a := leaveCores(1)
	b := leaveCores(1)
	if before > 1 && runtime.GOMAXPROCS(0) != max(before-1, 1) {
		t.Fatalf("GOMAXPROCS %d while two diffs run, want %d", runtime.GOMAXPROCS(0), max(before-1, 1))
	}
	a()
	if before > 1 && runtime.GOMAXPROCS(0) == before {
		t.Fatal("restored while a diff still runs")
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d after the diffs, want %d", got, before)
	}
}
