package edit

import (
	"strings"
	"testing"
)

// long is a function with runs of lines a block leaves out with "...".
const long = `def f(x):
    a = 1
    step_1()
    step_2()
    b = 2
    step_3()
    step_4()
    return a + b


def g():
    return 0
`

// aider's "..." elision: the same number of "..." lines in FIND and REPLACE
// split the block into pieces, matched in order, each after the one before,
// and replaced by their counterparts, all or nothing.
func TestApplyElision(t *testing.T) {
	search := func(find, repl string) string {
		return "<<<<<<< SEARCH\n" + find + "=======\n" + repl + ">>>>>>> REPLACE\n"
	}
	tests := []applyCase{
		{"two elisions",
			long, search("def f(x):\n    a = 1\n...\n    b = 2\n...\n    return a + b\n", "def f(x):\n    a = 10\n...\n    b = 20\n...\n    return a * b\n"),
			strings.NewReplacer("a = 1\n", "a = 10\n", "b = 2\n", "b = 20\n", "a + b", "a * b").Replace(long), "applied"},
		{"the seed's format, and a leading and trailing ...",
			long, "### CHANGE 1: x\nFIND:\n```\n...\n    step_2()\n...\n    step_4()\n...\n```\nREPLACE WITH:\n```\n...\n    step_2(fast=True)\n...\n    step_4(fast=True)\n...\n```\n",
			strings.NewReplacer("step_2()", "step_2(fast=True)", "step_4()", "step_4(fast=True)").Replace(long), "applied"},
		{"... on one side only is malformed",
			long, search("def f(x):\n...\n    return a + b\n", "def f(x):\n    return 0\n"), long, "malformed"},
		{"a piece that is not there: nothing applies",
			long, search("    a = 1\n...\n    c = 3\n", "    a = 5\n...\n    c = 6\n"), long, "not-found"},
		{"a piece is looked for after the one before",
			long, search("    b = 2\n...\n    a = 1\n", "    b = 3\n...\n    a = 4\n"), long, "not-found"},
		{"a piece with two places after the one before: ambiguous",
			"a\nx\nb\nx\n", search("a\n...\nx\n", "A\n...\nX\n"), "a\nx\nb\nx\n", "ambiguous"},
		{"a piece empty in FIND only says nowhere where it goes",
			long, search("    a = 1\n...\n", "    a = 1\n...\n    new()\n"), long, "malformed"},
		{"already applied",
			strings.Replace(strings.Replace(long, "a = 1\n", "a = 10\n", 1), "b = 2\n", "b = 20\n", 1),
			search("    a = 1\n...\n    b = 2\n", "    a = 10\n...\n    b = 20\n"),
			strings.Replace(strings.Replace(long, "a = 1\n", "a = 10\n", 1), "b = 2\n", "b = 20\n", 1), "already-applied"},
		{"a literal ... line that is in the file is code",
			"class P(Protocol):\n    def f(self):\n        ...\n", search("    def f(self):\n        ...\n", "    def f(self) -> int:\n        ...\n"),
			"class P(Protocol):\n    def f(self) -> int:\n        ...\n", "applied"},
		{"pieces re-indented each by its own match",
			long, search("a = 1\n...\nb = 2\n", "a = 3\n...\nb = 4\n"),
			strings.NewReplacer("a = 1\n", "a = 3\n", "b = 2\n", "b = 4\n").Replace(long), "applied"},
	}
	checkApplies(t, tests)
	_, out := applyInput(t, long, search("def f(x):\n...\n    return a + b\n", "def f(x):\n    return 0\n"))
	if !strings.Contains(out[0].Message, "FIND has 1") || !strings.Contains(out[0].Message, "REPLACE has 0") {
		t.Errorf("message %q", out[0].Message)
	}
	_, out = applyInput(t, long, search("def f(x):\n    a = 1\n...\n    b = 2\n...\n    return a + b\n", "def f(x):\n    a = 10\n...\n    b = 20\n...\n    return a * b\n"))
	if out[0].Start != 1 || out[0].End != 8 || !strings.Contains(out[0].Message, "3 pieces") {
		t.Errorf("%+v", out[0])
	}
}

// In a diff, a "..." line is a line of the file like any other.
func TestElisionOnlyInBlocks(t *testing.T) {
	got, out := applyInput(t, "a\n...\nb\n", "@@ -1,3 +1,3 @@\n a\n ...\n-b\n+B\n")
	if got != "a\n...\nB\n" || codes(out) != "applied" {
		t.Errorf("%q %+v", got, out)
	}
	_, out = applyInput(t, "a\nx\nb\n", "@@ -1,3 +1,3 @@\n a\n ...\n-b\n+B\n")
	if codes(out) != "not-found" {
		t.Errorf("%+v", out)
	}
}

// FuzzElision: a block with "..." lines never panics, and one that does not
// apply leaves the text as it was.
func FuzzElision(f *testing.F) {
	f.Add(long, "    a = 1\n...\n    b = 2\n", "    a = 3\n...\n    b = 4\n")
	f.Add("a\nx\nb\nx\n", "a\n...\nx\n...\n", "A\n...\nX\n...\n")
	f.Fuzz(func(t *testing.T, file, find, repl string) {
		b := Block{Index: 1, Find: SplitLines(find), Replace: SplitLines(repl), Format: FormatAider}
		res, out := ApplyAll(Parse([]byte(file)), "f", []Block{b})
		if out[0].Code != Applied && string(res.Bytes()) != file {
			t.Fatalf("%s changed the text: %q", out[0].Code, res.Bytes())
		}
	})
}
