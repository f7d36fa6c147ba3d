package gitx

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

const oidA = "1111111111111111111111111111111111111111"
const oidB = "2222222222222222222222222222222222222222"
const oidZ = "0000000000000000000000000000000000000000"

func TestParseRaw(t *testing.T) {
	rec := func(meta string, paths ...string) string {
		return meta + "\x00" + strings.Join(paths, "\x00") + "\x00"
	}
	tests := []struct {
		name string
		in   string
		want []RawEntry
		err  string
	}{
		{"empty", "", nil, ""},
		{"modify", rec(":100644 100644 "+oidA+" "+oidB+" M", "a.txt"),
			[]RawEntry{{OldMode: 0o100644, NewMode: 0o100644, OldOID: oidA, NewOID: oidB, Status: 'M', Path: "a.txt", OldPath: "a.txt"}}, ""},
		{"rename with score", rec(":100644 100755 "+oidA+" "+oidB+" R087", "old name", "new name"),
			[]RawEntry{{OldMode: 0o100644, NewMode: 0o100755, OldOID: oidA, NewOID: oidB, Status: 'R', Score: 87, OldPath: "old name", Path: "new name"}}, ""},
		{"T015 hostile names survive exactly", rec(":000000 100644 "+oidZ+" "+oidB+" A", "-rf;$(touch x)`y`\n\t\"q\"\xff.txt"),
			[]RawEntry{{OldMode: 0, NewMode: 0o100644, OldOID: oidZ, NewOID: oidB, Status: 'A', OldPath: "-rf;$(touch x)`y`\n\t\"q\"\xff.txt", Path: "-rf;$(touch x)`y`\n\t\"q\"\xff.txt"}}, ""},
		{"two records", rec(":100644 000000 "+oidA+" "+oidZ+" D", "gone") + rec(":160000 160000 "+oidA+" "+oidB+" M", "sub"),
			[]RawEntry{
				{OldMode: 0o100644, OldOID: oidA, NewOID: oidZ, Status: 'D', Path: "gone", OldPath: "gone"},
				{OldMode: 0o160000, NewMode: 0o160000, OldOID: oidA, NewOID: oidB, Status: 'M', Path: "sub", OldPath: "sub"},
			}, ""},
		{"missing path", ":100644 100644 " + oidA + " " + oidB + " M\x00", nil, "lacks a path"},
		{"rename lacks second path", rec(":100644 100644 "+oidA+" "+oidB+" R100", "only"), nil, "lacks a path"},
		{"no NUL at all", ":100644 100644 " + oidA + " " + oidB + " M", nil, "without a path"},
		{"bad mode", rec(":10064x 100644 "+oidA+" "+oidB+" M", "a"), nil, "malformed"},
		{"short oid", rec(":100644 100644 abc "+oidB+" M", "a"), nil, "malformed"},
		{"unmerged status", rec(":100644 100644 "+oidA+" "+oidB+" U", "a"), nil, "unexpected status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRaw([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries, want %d: %+v", len(got), len(tt.want), got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseHunkHeader(t *testing.T) {
	tests := []struct {
		in             string
		os, ol, ns, nl int64
		ok             bool
	}{
		{"@@ -1,2 +1,3 @@", 1, 2, 1, 3, true},
		{"@@ -1 +1 @@ def f():", 1, 1, 1, 1, true},
		{"@@ -0,0 +1,12 @@", 0, 0, 1, 12, true},
		{"@@ -5,0 +6 @@", 5, 0, 6, 1, true},
		{"@@ -1,2 +1,3", 0, 0, 0, 0, false},
		{"@@ -a,2 +1,3 @@", 0, 0, 0, 0, false},
		{"@@ -1,-2 +1,3 @@", 0, 0, 0, 0, false},
		{"@@@ -1 -1 +1 @@@", 0, 0, 0, 0, false},
	}
	for _, tt := range tests {
		os, ol, ns, nl, ok := ParseHunkHeader([]byte(tt.in))
		if ok != tt.ok || (ok && (os != tt.os || ol != tt.ol || ns != tt.ns || nl != tt.nl)) {
			t.Errorf("%q: got %d,%d %d,%d %v", tt.in, os, ol, ns, nl, ok)
		}
	}
}

func TestParseBatchHeader(t *testing.T) {
	h, err := ParseBatchHeader(oidA + " blob 1234\n")
	if err != nil || h.OID != oidA || h.Type != "blob" || h.Size != 1234 || h.Missing {
		t.Errorf("got %+v %v", h, err)
	}
	h, err = ParseBatchHeader(oidA + " missing\n")
	if err != nil || !h.Missing {
		t.Errorf("missing: %+v %v", h, err)
	}
	for _, bad := range []string{"", oidA, oidA + " blob -1", oidA + " blob x", "a b c d"} {
		if _, err := ParseBatchHeader(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCountLines(t *testing.T) {
	tests := map[string]int64{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2, "\n": 1, "\n\n": 2, "a\r\nb\r\n": 2}
	for in, want := range tests {
		if got := CountLines([]byte(in)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
	}
}

// T010: the patch git writes is read into per-file counts (the seed parsed
// `git diff --stat`; we read the patch itself, with go-gitdiff for the headers).
const samplePatch = `diff --git a/f b/f
deleted file mode 100644
index 422c2b7ab3b3c668038da977e4e93a5fc623169c..0000000000000000000000000000000000000000
--- a/f
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/f b/f
new file mode 120000
index 0000000000000000000000000000000000000000..7937c68fbcf7c484f2d5ce7801944416eedf0d2c
--- /dev/null
+++ b/f
@@ -0,0 +1 @@
+g
\ No newline at end of file
diff --git "a/sp ace\t\"q\"" "b/sp ace\t\"q\""
old mode 100644
new mode 100755
diff --git a/r b/r2
similarity index 97%
rename from r
rename to r2
index 1c99002b20b3c0e11a95c8423601a38fff9b3675..6006ca457910cc24631dcfba8dcbf98b15c9c68d 100644
--- a/r
+++ b/r2
@@ -1,3 +1,3 @@
 38
-39
+39!
 40
@@ -10 +10,2 @@
-x
\ No newline at end of file
+x
+y
diff --git a/logo.bin b/logo.bin
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
GIT binary patch
literal 3
KcmZ?wWB>pF0RR91

literal 3
KcmZ?wWB>pF0RR91

`

func TestT010ScanPatch(t *testing.T) {
	var got []string
	var kinds []LineKind
	err := ScanPatch(strings.NewReader(samplePatch), Visitor{
		Line: func(s *Section, l Line) error { kinds = append(kinds, l.Kind); return nil },
		Done: func(s *Section) error {
			f := s.File
			got = append(got, strings.Join([]string{f.OldName, f.NewName, boolStr(f.IsNew, "new"), boolStr(f.IsDelete, "del"),
				boolStr(f.IsRename, "ren"), boolStr(s.Binary, "bin"), itoa(s.Added), itoa(s.Deleted)}, "|"))
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"f||-|del|-|-|0|2",
		"|f|new|-|-|-|1|0",
		"sp ace\t\"q\"|sp ace\t\"q\"|-|-|-|-|0|0",
		"r|r2|-|-|ren|-|3|2",
		"logo.bin|logo.bin|-|-|-|bin|0|0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !(&Section{Hunks: 1, OldStart: 1}).WholeOld() || (&Section{Hunks: 2, OldStart: 1}).WholeOld() ||
		(&Section{Hunks: 1, OldStart: 6}).WholeOld() || !(&Section{Hunks: 1}).WholeOld() {
		t.Error("WholeOld: only one hunk from line 1 (or an empty old file) covers the whole file")
	}
	if kinds[0] != LineHeader || !containsKind(kinds, LineNoNewline) || !containsKind(kinds, LineBinary) {
		t.Errorf("line kinds %v", kinds)
	}
}

func TestScanPatchRejectsMalformed(t *testing.T) {
	tests := map[string]string{
		"junk before header":   "hello\n",
		"hunk ends early":      "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n",
		"too many lines":       "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
		"bad hunk header":      "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n+b\n",
		"deletion over budget": "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n-b\n+c\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if err := ScanPatch(strings.NewReader(in), Visitor{}); err == nil {
				t.Errorf("accepted")
			}
		})
	}
}

// A line longer than the buffer is counted by its first byte and cut, not held.
func TestScanPatchLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLine+17)
	in := "diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-" + long + "\n+" + long + "\n"
	var cut int64
	var kept int
	err := ScanPatch(strings.NewReader(in), Visitor{
		Line: func(s *Section, l Line) error {
			if l.Kind == LineAdded {
				cut, kept = l.Cut, len(l.Text)
			}
			return nil
		},
		Done: func(s *Section) error {
			if s.Added != 1 || s.Deleted != 1 {
				t.Errorf("counts +%d -%d", s.Added, s.Deleted)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(kept)+cut != int64(len(long)+1) || kept > MaxLine {
		t.Errorf("kept %d cut %d of %d", kept, cut, len(long)+1)
	}
}

// FuzzScanPatch: never a panic, and wherever go-gitdiff parses the same patch
// into the same files, the streaming counts agree with its full parse.
func FuzzScanPatch(f *testing.F) {
	f.Add([]byte(samplePatch))
	f.Add([]byte("diff --git a/x b/x\nindex " + oidA + ".." + oidB + " 100644\n--- a/x\n+++ b/x\n@@ -1,3 +1,2 @@\n a\n-b\n c\n\\ No newline at end of file\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var counts [][2]int64
		err := ScanPatch(bytes.NewReader(in), Visitor{Done: func(s *Section) error {
			counts = append(counts, [2]int64{s.Added, s.Deleted})
			return nil
		}})
		if err != nil {
			return
		}
		files, _, gerr := gitdiff.Parse(bytes.NewReader(in))
		if gerr != nil || len(files) != len(counts) {
			return
		}
		for i, f := range files {
			var add, del int64
			for _, fr := range f.TextFragments {
				add += fr.LinesAdded
				del += fr.LinesDeleted
			}
			if !f.IsBinary && (add != counts[i][0] || del != counts[i][1]) {
				t.Fatalf("file %d: go-gitdiff +%d -%d, scanner +%d -%d", i, add, del, counts[i][0], counts[i][1])
			}
		}
	})
}

func FuzzParseRaw(f *testing.F) {
	f.Add([]byte(":100644 100644 " + oidA + " " + oidB + " R087\x00a\x00b\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		entries, err := ParseRaw(in)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Path == "" || len(e.OldOID) < 40 {
				t.Fatalf("accepted a broken entry %+v", e)
			}
		}
	})
}

func boolStr(b bool, s string) string {
	if b {
		return s
	}
	return "-"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func containsKind(ks []LineKind, k LineKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// BenchmarkScanPatch scans a synthetic patch of 5,000 small files.
func BenchmarkScanPatch(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&buf, "diff --git a/pkg/f%d.py b/pkg/f%d.py\nindex %s..%s 100644\n--- a/pkg/f%d.py\n+++ b/pkg/f%d.py\n@@ -1,20 +1,20 @@\n", i, i, oidA, oidB, i, i)
		for j := 0; j < 20; j++ {
			if j%5 == 0 {
				fmt.Fprintf(&buf, "-    return x * %d\n+    return x * %d + 1\n", j, j)
			} else {
				fmt.Fprintf(&buf, " line %d of the file\n", j)
			}
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ScanPatch(bytes.NewReader(data), Visitor{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseCommit(t *testing.T) {
	raw := "tree " + oidA + "\nparent " + oidB + "\nparent " + oidA + "\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nsubject\n\nbody\n"
	c, err := ParseCommit([]byte(raw))
	if err != nil || c.Tree != oidA || len(c.Parents) != 2 || c.Parents[0] != oidB || c.Message != "subject\n\nbody\n" {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err := ParseCommit([]byte("tree " + oidA + "\nauthor x\n\nroot\n")); err != nil || len(c.Parents) != 0 {
		t.Errorf("root commit: %+v %v", c, err)
	}
	if _, err := ParseCommit([]byte("author x\n\nno tree\n")); err == nil {
		t.Error("accepted a commit without a tree")
	}
}

func TestParseTrailedCommits(t *testing.T) {
	in := oidA + "\x00" + oidB + "\x00" + oidB + " " + oidA + "\x00subject one\x00\n" +
		oidB + "\x00" + oidA + "\x00\x00no \x1e\x1f trailer\x00\n"
	got, err := ParseTrailedCommits([]byte(in), false)
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	if got[0].ID != oidA || got[0].Tree != oidB || got[0].Subject != "subject one" || len(got[0].Parents) != 2 {
		t.Errorf("%+v", got[0])
	}
	if got[1].ID != oidB || len(got[1].Parents) != 0 || got[1].Subject != "no \x1e\x1f trailer" {
		t.Errorf("%+v", got)
	}
	if got, err := ParseTrailedCommits(nil, false); err != nil || len(got) != 0 {
		t.Errorf("no commits: %v %v", got, err)
	}
	if _, err := ParseTrailedCommits([]byte("a\x00b\x00"), false); err == nil {
		t.Error("accepted a short record")
	}
	signed := oidA + "\x00" + oidB + "\x00\x00signed\x00G\x00alice@example.com\x00SHA256:x\x00\n"
	got, err = ParseTrailedCommits([]byte(signed), true)
	if err != nil || len(got) != 1 || got[0].Signature != "G" || got[0].Signer != "alice@example.com" || got[0].Key != "SHA256:x" {
		t.Errorf("signed: %+v %v", got, err)
	}
	// a record that does not start with a commit id is refused, whatever its
	// length: text an agent wrote never passes for a commit of its own
	if _, err := ParseTrailedCommits([]byte(oidA+"\x00"+oidB+"\x00\x00sub\x00\nnot an id\x00"+oidB+"\x00\x00s\x00\n"), false); err == nil {
		t.Error("accepted a record without a commit id")
	}
	if _, err := ParseTrailedCommits([]byte(oidA+"\x00"+oidB+"\x00\x00sub\x00trailing"), false); err == nil {
		t.Error("accepted output after the last record")
	}
}

func TestParseLsTree(t *testing.T) {
	in := "100644 blob " + oidA + "\tsp ace\nnew\x00120000 blob " + oidB + "\tlink\x00040000 tree " + oidA + "\tdir\x00"
	got, err := ParseLsTree([]byte(in))
	if err != nil || len(got) != 3 {
		t.Fatalf("%v %v", got, err)
	}
	if e := got["sp ace\nnew"]; e.Mode != ModeRegular || e.Type != "blob" || e.OID != oidA {
		t.Errorf("%+v", e)
	}
	if got["link"].Mode != ModeSymlink || got["dir"].Type != "tree" {
		t.Errorf("%+v", got)
	}
	for _, bad := range []string{"100644 blob\tx\x00", "10x644 blob " + oidA + "\tx\x00", "100644 blob " + oidA + " x\x00"} {
		if _, err := ParseLsTree([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestCountDiff(t *testing.T) {
	d := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,2 @@\n a\n--- an old line that starts with dashes\n-b\n+++ a new one with pluses\n"
	if a, del := CountDiff(d); a != 1 || del != 2 {
		t.Errorf("CountDiff = +%d -%d", a, del)
	}
	if a, del := CountDiff(""); a != 0 || del != 0 {
		t.Errorf("empty: +%d -%d", a, del)
	}
}

func TestUniqueNames(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"", nil},
		{"t/a.py\x00t/b.py\x00t/a.py\x00", []string{"t/a.py", "t/b.py"}},
		{"new\nline.py\x00x.py\x00", []string{"new\nline.py", "x.py"}},
	}
	for _, tt := range tests {
		if got := uniqueNames([]byte(tt.out)); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.out, got, tt.want)
		}
	}
}
