package edit

import (
	"strings"
	"testing"
)

// applyInput parses input and applies it to file ("\x00" for a file that does
// not exist); the result is "\x00" when the file is deleted.
func applyInput(t *testing.T, file, input string) (string, []Outcome) {
	t.Helper()
	bs, err := ParseBlocks(input)
	if err != nil {
		t.Fatalf("%q: %v", input, err)
	}
	var txt *Text
	if file != "\x00" {
		txt = Parse([]byte(file))
	}
	res, out := ApplyAll(txt, "f", bs)
	if res == nil {
		return "\x00", out
	}
	return string(res.Bytes()), out
}

func codes(out []Outcome) string {
	var s []string
	for _, o := range out {
		s = append(s, o.Code)
	}
	return strings.Join(s, ",")
}

// applyCase is a file ("\x00": none), an input, the result and the codes.
type applyCase struct{ name, file, in, want, codes string }

// checkApplies applies each case and returns every outcome.
func checkApplies(t *testing.T, tests []applyCase) []Outcome {
	t.Helper()
	var all []Outcome
	for _, tt := range tests {
		got, out := applyInput(t, tt.file, tt.in)
		if got != tt.want || codes(out) != tt.codes {
			t.Errorf("%s: got %q %s, want %q %s (%+v)", tt.name, got, codes(out), tt.want, tt.codes, out)
		}
		all = append(all, out...)
	}
	return all
}

// dup is a file in which the same three lines stand twice.
const dup = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"

// Unified diff hunks are matched by content with the FIND/REPLACE tiers; a
// header's line numbers only break a tie when they point exactly at one of
// equal matches.
func TestApplyUnifiedDiff(t *testing.T) {
	tests := []applyCase{
		{"wrong line numbers, unique content",
			"a\nb\nc\nd\ne\n", "--- a/f\n+++ b/f\n@@ -40,3 +41,3 @@\n b\n-c\n+C\n d\n",
			"a\nb\nC\nd\ne\n", "applied"},
		{"numbers pick the second of two equal matches",
			dup, "@@ -7,2 +7,2 @@\n     x = 1\n-    return x\n+    return x + 1\n",
			"def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x + 1\n", "applied"},
		{"numbers that point at neither match: ambiguous, as before",
			dup, "@@ -5,2 +5,2 @@\n     x = 1\n-    return x\n+    return x + 1\n",
			dup, "ambiguous"},
		{"the second hunk's old numbers, moved by what the first added",
			"k\n" + dup, "@@ -1,1 +1,2 @@\n k\n+k2\n@@ -8,2 +99,2 @@\n     x = 1\n-    return x\n+    return 2 * x\n",
			"k\nk2\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return 2 * x\n", "applied,applied"},
		{"a hunk already applied",
			"a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n", "already-applied"},
		{"the new side ends without a newline",
			"a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n", "a\nc", "applied"},
		{"the new side gets a final newline",
			"a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n", "applied"},
		{"CRLF kept",
			"a\r\nb\r\nc\r\n", "@@ -1,2 +1,3 @@\n a\n-b\n+b1\n+b2\n", "a\r\nb1\r\nb2\r\nc\r\n", "applied"},
		{"a new file", "\x00", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n", "x\ny\n", "applied"},
		{"a new file without a final newline", "\x00", "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n", "x", "applied"},
		{"a new file that is already there", "x\ny\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n", "x\ny\n", "already-applied"},
		{"a new file over another content, kept CRLF", "old\r\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n", "x\r\ny\r\n", "applied"},
		{"a deleted file", "a\nb\n", "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", "\x00", "applied"},
		{"a deleted file whose lines differ", "a\nB\n", "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", "a\nB\n", "not-found"},
		{"a deleted file that is gone", "\x00", "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", "\x00", "already-applied"},
		{"an edit of a file that is not there", "\x00", "@@ -1 +1 @@\n-a\n+b\n", "\x00", "not-found"},
	}
	for _, o := range checkApplies(t, tests) {
		if o.Format != FormatUnified {
			t.Errorf("block %d: format %q", o.Block, o.Format)
		}
	}
}

// Codex sections: "@@ <line>" anchors say after which line (and before the
// next line like it) the section is; "*** End of File" pins it to the end.
func TestApplyCodex(t *testing.T) {
	up := func(body string) string {
		return "*** Begin Patch\n*** Update File: f\n" + body + "*** End Patch\n"
	}
	tests := []applyCase{
		{"an anchor picks the second of two equal places",
			dup, up("@@ def b():\n     x = 1\n-    return x\n+    return -x\n"),
			"def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return -x\n", "applied"},
		{"an anchor picks the first, up to the next line like it",
			"class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 1\n",
			up("@@ class A:\n@@ def f(self):\n-        return 1\n+        return 2\n"),
			"class A:\n    def f(self):\n        return 2\nclass B:\n    def f(self):\n        return 1\n", "applied"},
		{"a second section's anchor is looked for after the first section",
			"def f():\n    return 1\ndef f():\n    return 1\n",
			up("@@ def f():\n-    return 1\n+    return 2\n@@ def f():\n-    return 1\n+    return 3\n"),
			"def f():\n    return 2\ndef f():\n    return 3\n", "applied,applied"},
		{"an anchor that is not there", dup, up("@@ def c():\n-    return x\n+    return 0\n"), dup, "not-found"},
		{"no anchor, two places: ambiguous", dup, up("@@\n-    return x\n+    return 0\n"), dup, "ambiguous"},
		{"End of File: only the match at the end",
			"x = 1\ny\nx = 1\n", up("@@\n-x = 1\n+x = 2\n*** End of File\n"), "x = 1\ny\nx = 2\n", "applied"},
		{"only added lines, End of File: at the end",
			"a\nb", up("@@\n+c\n+d\n*** End of File\n"), "a\nb\nc\nd", "applied"}, // the missing final newline kept
		{"only added lines, nothing saying where: refused (Codex would append them)",
			"a\nb\n", up("@@\n+c\n"), "a\nb\n", "empty-find"},
		{"only added lines after an anchor",
			"class A:\n    x = 1\n", up("@@ class A:\n+    y = 0\n"), "class A:\n    y = 0\n    x = 1\n", "applied"},
		{"add, then edit what was added",
			"\x00", "*** Begin Patch\n*** Add File: f\n+a\n+b\n*** Update File: f\n@@\n-b\n+c\n*** End Patch\n", "a\nc\n", "applied,applied"},
		{"delete", "a\n", "*** Begin Patch\n*** Delete File: f\n*** End Patch\n", "\x00", "applied"},
		{"delete, then edit", "a\n", "*** Begin Patch\n*** Delete File: f\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\n", "\x00", "applied,not-found"},
	}
	checkApplies(t, tests)
}
