package edit

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// blockSummary is what a test compares of a parsed block.
func blockSummary(b Block) string {
	s := fmt.Sprintf("%s %s %q find=%q repl=%q", b.Format, b.Action, b.File, strings.Join(b.Find, "|"), strings.Join(b.Replace, "|"))
	if b.OldStart+b.NewStart > 0 {
		s += fmt.Sprintf(" at=-%d+%d", b.OldStart, b.NewStart)
	}
	if b.FinalNewline != 0 {
		s += fmt.Sprintf(" eol=%d", b.FinalNewline)
	}
	if len(b.Anchors) > 0 {
		s += fmt.Sprintf(" anchors=%q", b.Anchors)
	}
	if b.AtEOF {
		s += " eof"
	}
	return s
}

func summaries(bs []Block) string {
	var out []string
	for _, b := range bs {
		out = append(out, blockSummary(b))
	}
	return strings.Join(out, "\n")
}

// parseCase is an input and the summaries of the blocks it parses into.
type parseCase struct{ name, in, want string }

func checkParses(t *testing.T, tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		bs, err := ParseBlocks(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := summaries(bs); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// parseErrorCase is an input that does not parse, and what the error says.
type parseErrorCase struct {
	name, in, msg string
	truncated     bool
}

func checkParseErrors(t *testing.T, tests []parseErrorCase) {
	t.Helper()
	for _, tt := range tests {
		_, err := ParseBlocks(tt.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.msg) || pe.Truncated != tt.truncated {
			t.Errorf("%s: %v (truncated %v)", tt.name, err, pe.Truncated)
		}
	}
}

// Unified diffs, as git prints them and as models write them: every hunk is
// a block whose FIND is its context and removed lines, whose REPLACE is its
// context and added lines; the header's numbers are kept, not trusted.
func TestParseUnifiedDiff(t *testing.T) {
	tests := []parseCase{
		{"git diff of two files",
			"diff --git a/m.py b/m.py\nindex 3b18e51..a2c5d4c 100644\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def a():\n-    return 1\n+    return 2\n \n@@ -10,2 +10,3 @@ def b():\n x = 1\n+y = 2\n z = 3\n" +
				"diff --git a/pkg/n.py b/pkg/n.py\n--- a/pkg/n.py\n+++ b/pkg/n.py\n@@ -4 +4 @@\n-q\n+r\n",
			`unified-diff  "m.py" find="def a():|    return 1|" repl="def a():|    return 2|" at=-1+1
unified-diff  "m.py" find="x = 1|z = 3" repl="x = 1|y = 2|z = 3" at=-10+10
unified-diff  "pkg/n.py" find="q" repl="r" at=-4+4`},
		{"wrong numbers and counts: read by content",
			"--- a/m.py\n+++ b/m.py\n@@ -100,9 +7,1 @@\n a\n-b\n+c\n d\n@@ -3,1 +3,1 @@\n e\n-f\n+g\n h\n i\n",
			`unified-diff  "m.py" find="a|b|d" repl="a|c|d" at=-100+7
unified-diff  "m.py" find="e|f|h|i" repl="e|g|h|i" at=-3+3`},
		{"a blank context line without its space; blank lines after the hunk are not in it",
			"--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n a\n\n-b\n+c\n\n\nSome prose after the diff.\n",
			`unified-diff  "m.py" find="a||b" repl="a||c" at=-1+1`},
		{"hunks without file headers are for <path>, in a fence",
			"Here is the diff:\n```diff\n@@ -2,2 +2,2 @@\n x\n-y\n+Y\n```\n",
			`unified-diff  "" find="x|y" repl="x|Y" at=-2+2`},
		{"a new file",
			"diff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n",
			`unified-diff add "new.py" find="" repl="a = 1|b = 2"`},
		{"an empty new file and a deleted one, without hunks",
			"diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
			`unified-diff add "empty.txt" find="" repl=""
unified-diff delete "old.txt" find="" repl=""`},
		{"a deleted file: its lines are what it must hold",
			"--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			`unified-diff delete "gone.py" find="a|b" repl=""`},
		{"no newline at the end, before and after",
			"--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			`unified-diff  "m.txt" find="a|b" repl="a|b" at=-1+1 eol=1`},
		{"the new side ends without a newline",
			"--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-b\n+c\n\\ No newline at end of file\n",
			`unified-diff  "m.txt" find="b" repl="c" at=-1+1 eol=-1`},
		{"a removed line that starts with two dashes, counted",
			"--- a/m.sql\n+++ b/m.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n x\n",
			`unified-diff  "m.sql" find="-- old comment|x" repl="++ new comment|x" at=-1+1`},
		{"quoted names with spaces and timestamps",
			"--- \"a/sp ace\\t.py\"\n+++ \"b/sp ace\\t.py\"\n@@ -1 +1 @@\n-a\n+b\n--- a/x y.py\t2024-01-01 10:00:00\n+++ b/x y.py\t2024-01-01 10:00:01\n@@ -1 +1 @@\n-c\n+d\n",
			`unified-diff  "sp ace\t.py" find="a" repl="b" at=-1+1
unified-diff  "x y.py" find="c" repl="d" at=-1+1`},
		{"CRLF input",
			"--- a/m.py\r\n+++ b/m.py\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
			`unified-diff  "m.py" find="a" repl="b" at=-1+1`},
		{"### FILE: names the file of bare hunks",
			"### FILE: src/x.py\n@@ -5,1 +5,1 @@\n-a\n+b\n",
			`unified-diff  "src/x.py" find="a" repl="b" at=-5+5`},
	}
	checkParses(t, tests)
}

// What a unified diff cannot say is an error with its line; a diff cut off
// before the lines its last hunk counts is truncated.
func TestParseUnifiedDiffErrors(t *testing.T) {
	tests := []parseErrorCase{
		{"a rename", "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n", "renames", false},
		{"a rename by its headers", "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-a\n+b\n", "renames", false},
		{"a binary patch", "diff --git a/x.png b/x.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\n", "binary", false},
		{"a hunk that changes nothing", "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n b\n", "changes nothing", false},
		{"a new file's hunk with context", "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n a\n+b\n", "new file", false},
		{"headers without a hunk", "--- a/m.py\n+++ b/m.py\n\nprose\n", "no hunk", false},
		{"cut off inside a hunk", "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n a\n-b\n+c\n d", "cut off", true},
		{"cut off inside its fence", "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "cut off", true},
	}
	checkParseErrors(t, tests)
}

// --format forces one format: a bare "@@" then starts a unified hunk, and the
// other formats' markers are not looked for.
func TestParseForcedFormat(t *testing.T) {
	bs, err := ParseBlocksAs("@@\n a\n-b\n+c\n", FormatUnified)
	if err != nil || summaries(bs) != `unified-diff  "" find="a|b" repl="a|c"` {
		t.Fatalf("%v %s", err, summaries(bs))
	}
	if _, err := ParseBlocksAs("@@\n a\n-b\n+c\n", FormatSeed); err == nil {
		t.Error("a diff read as the seed's format")
	}
	if _, err := ParseBlocksAs("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", FormatUnified); err == nil {
		t.Error("an aider block read as a unified diff")
	}
	if _, err := ParseBlocksAs("x", "nonsense"); err == nil {
		t.Error("an unknown format accepted")
	}
}

func FuzzParseUnifiedDiff(f *testing.F) {
	f.Add("--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n")
	f.Add("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+q\n\\ No newline at end of file\n")
	f.Add("@@ -1 +1 @@\n-a\n+b\n\n@@ -9,0 +9,1 @@\n+c\n")
	f.Fuzz(func(t *testing.T, in string) {
		bs, err := ParseBlocksAs(in, FormatUnified)
		if err == nil && len(bs) == 0 {
			t.Fatal("no error and no blocks")
		}
		for _, b := range bs {
			if b.Format != FormatUnified {
				t.Fatalf("format %q", b.Format)
			}
			if b.Action == EditFile && len(b.Find)+len(b.Replace) == 0 {
				t.Fatalf("an empty hunk: %+v", b)
			}
		}
		ApplyAll(Parse([]byte("a\nb\nc\nd\n")), "f", bs) // never panics
	})
}
