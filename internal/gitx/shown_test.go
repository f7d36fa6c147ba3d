package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Shown, counted from the whole-file patch the analysis reads, is the size of
// the lines a review's patch with three lines of context prints, whatever the
// distance between changes, at either end, without a final newline, on both
// sides of a type change; and CountAdded sees every added line.
func TestShownAndCountAdded(t *testing.T) {
	r := newTestRepo(t)
	numbered := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if c, ok := change[i]; ok {
				if c != "" {
					b.WriteString(c + "\n")
				}
				continue
			}
			fmt.Fprintf(&b, "line %d of a file\n", i)
		}
		return b.String()
	}
	type version struct{ old, new string }
	files := map[string]version{"same.txt": {"x\n", "x\n"}}
	for gap := 4; gap <= 9; gap++ { // changes gap lines apart: one hunk up to 6, two from 7
		files[fmt.Sprintf("gap%d.txt", gap)] = version{numbered(40, nil), numbered(40, map[int]string{10: "ten z", 10 + gap + 1: "z and z"})}
	}
	files["top.txt"] = version{numbered(20, nil), numbered(20, map[int]string{1: "first z"})}
	files["bottom.txt"] = version{numbered(20, nil), numbered(20, map[int]string{20: "last"})}
	files["noeol.txt"] = version{"a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nd\ne\nf\nG"}
	files["far-noeol.txt"] = version{"a\nb\nc\nd\ne\nf\ng\nh\ni", "A\nb\nc\nd\ne\nf\ng\nh\ni"}
	files["deleted.txt"] = version{numbered(12, nil), ""}
	files["removed-lines.txt"] = version{numbered(30, nil), numbered(30, map[int]string{5: "", 6: "", 25: ""})}
	files["long.txt"] = version{numbered(5, nil), numbered(5, map[int]string{3: strings.Repeat("z", 3*MaxLine)})}
	for p, v := range files {
		r.write(p, v.old)
	}
	r.write("typed", "a regular file\n")
	r.commitAll("init")
	for p, v := range files {
		if p == "deleted.txt" {
			r.git("rm", "-q", p)
			continue
		}
		r.write(p, v.new)
	}
	os.Remove(filepath.Join(r.dir, "typed"))
	if err := os.Symlink("top.txt", filepath.Join(r.dir, "typed")); err != nil {
		t.Fatal(err)
	}
	r.git("add", "-A")
	ctx := context.Background()
	repo, base, tree := r.index(r.dir)
	diffs, err := repo.DiffTreesTexts(ctx, base, tree, &Texts{
		CountAdded: func(l []byte, number int64, t *Tally) {
			t.N += int64(bytes.Count(l, []byte("z")))
			lines, _ := t.Notes.(map[int64]string)
			if lines == nil {
				lines = map[int64]string{}
			}
			lines[number] = string(l)
			t.Notes = lines
		},
		Keep: 4 * MaxLine,
	})
	if err != nil {
		t.Fatal(err)
	}
	printed := map[string]int64{}
	err = repo.StreamPatch(ctx, base, tree, Visitor{Keep: 4 * MaxLine, Line: func(s *Section, l Line) error {
		if l.Kind != LineHeader && l.Kind != LineHunk {
			printed[s.Name()] += int64(len(l.Text)) + l.Cut + 1
		}
		if l.Cut > 0 {
			t.Errorf("%s: a line of %d bytes cut with Keep", s.Name(), int64(len(l.Text))+l.Cut)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if d.Shown != printed[d.Path] {
			t.Errorf("%s: Shown %d, the review's patch prints %d bytes", d.Path, d.Shown, printed[d.Path])
		}
		want := int64(strings.Count(files[d.Path].new, "z"))
		if d.Counted.N != want {
			t.Errorf("%s: counted %d in the added lines, want %d", d.Path, d.Counted.N, want)
		}
		newLines := strings.Split(files[d.Path].new, "\n")
		lines, _ := d.Counted.Notes.(map[int64]string) // nil for a deletion
		if d.Path == "typed" {
			newLines = []string{"top.txt"} // a symlink now
		}
		for n, l := range lines {
			if n < 1 || n > int64(len(newLines)) || newLines[n-1] != l {
				t.Errorf("%s: added line %d is %.40q, not the new version's", d.Path, n, l)
			}
		}
	}
	if len(diffs) != len(files) { // all but same.txt, and typed
		t.Errorf("%d diffs", len(diffs))
	}
}

// Keep holds a long line whole up to its size, and cuts it after.
func TestScanPatchKeep(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLine+17)
	in := "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-" + long + "\n+" + long + "\n"
	for _, keep := range []int{0, 2 * MaxLine, len(long) + 1, 4 * MaxLine} {
		var kept []int
		var cut []int64
		err := ScanPatch(strings.NewReader(in), Visitor{Keep: keep, Line: func(s *Section, l Line) error {
			if l.Kind == LineAdded || l.Kind == LineDeleted {
				kept, cut = append(kept, len(l.Text)), append(cut, l.Cut)
				if l.Cut == 0 && string(l.Text[1:]) != long {
					t.Errorf("keep %d: a line kept whole differs", keep)
				}
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		want := min(max(keep, MaxLine), len(long)+1)
		for i := range kept {
			if kept[i] != want || int64(kept[i])+cut[i] != int64(len(long)+1) {
				t.Errorf("keep %d: kept %d cut %d, want %d kept of %d", keep, kept[i], cut[i], want, len(long)+1)
			}
		}
	}
}
