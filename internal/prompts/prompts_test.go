package prompts

import (
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/edit"
)

func lines(n int) []byte { return []byte(strings.Repeat("x = 1\n", n)) }

// T005: an added file is always written whole, however large its neighbour.
func TestT005AddBypassesDiff(t *testing.T) {
	if Strategy("add", lines(10000), 500, 15000) != Standard {
		t.Error("add must use the standard prompt")
	}
	p, s := Build(Request{Path: "new.py", Change: "add", MaxLines: 500, MaxBytes: 15000})
	if s != Standard || strings.Contains(p, "FIND") {
		t.Errorf("%s\n%s", s, p)
	}
}

// T010, T020, T030: the size thresholds.
func TestT010T020T030IsLarge(t *testing.T) {
	tests := []struct {
		name    string
		content []byte
		want    bool
	}{
		{"T010 501 lines", lines(501), true},
		{"500 lines", lines(500), false},
		{"T020 15001 bytes", []byte(strings.Repeat("x", 15001)), true},
		{"15000 bytes", []byte(strings.Repeat("x", 15000)), false},
		{"T030 100 lines, 3 KB", []byte(strings.Repeat(strings.Repeat("y", 29)+"\n", 100)), false},
	}
	for _, tt := range tests {
		if got := IsLarge(tt.content, 500, 15000); got != tt.want {
			t.Errorf("%s: %v", tt.name, got)
		}
	}
}

// T035: a small file being modified is written whole.
func TestT035SmallModifyIsStandard(t *testing.T) {
	p, s := Build(Request{Path: "small.py", Change: "modify", Existing: lines(100), MaxLines: 500, MaxBytes: 15000})
	if s != Standard || strings.Contains(p, "FIND") || !strings.Contains(p, "### FILE: small.py") || !strings.Contains(p, "x = 1") {
		t.Errorf("%s\n%s", s, p)
	}
}

// T120: the diff prompt carries the FIND/REPLACE format and the uniqueness rule,
// and an answer written in that format parses.
func TestT120DiffPrompt(t *testing.T) {
	p, s := Build(Request{Path: "big.py", Change: "modify", Existing: lines(501), LLD: "# Design\nmake it so", MaxLines: 500, MaxBytes: 15000,
		Tests: []File{{Path: "tests/test_big.py", Content: "def test():\n    assert True\n"}}})
	if s != Diff {
		t.Fatal(s)
	}
	for _, want := range []string{"FIND:", "REPLACE WITH:", "### CHANGE 1:", "match uniquely", "exactly one place", "do NOT write it out whole", "make it so", "tests/test_big.py"} {
		if !strings.Contains(p, want) {
			t.Errorf("missing %q", want)
		}
	}
	// patch reads diffs and Codex patches too, but agents are asked for the seed's format
	for _, not := range []string{"<<<<<<< SEARCH", "*** Begin Patch", "@@ -", "--- a/"} {
		if strings.Contains(p, not) {
			t.Errorf("the prompt asks for %q", not)
		}
	}
	answer := "### FILE: big.py\n\n### CHANGE 1: one\nFIND:\n```\nx = 1\n```\n\nREPLACE WITH:\n```\nx = 2\n```\n"
	if bs, err := edit.ParseBlocks(answer); err != nil || len(bs) != 1 || bs[0].File != "big.py" || bs[0].Format != edit.FormatSeed {
		t.Errorf("an answer in the documented format does not parse: %v %v", bs, err)
	}
}

func TestFence(t *testing.T) {
	if fence("no ticks") != "```" || fence("a ``` b") != "````" || fence("`````") != "``````" {
		t.Error("fence")
	}
}

// TestIssuePrompts: seed 004 N2 combines brief + template, or feedback +
// current draft + template; N4 is the fixed review prompt + the draft.
func TestIssuePrompts(t *testing.T) {
	p := IssueDraft("export widgets", "# <Title>")
	for _, want := range []string{"export widgets", "# <Title>", "**Labels:** "} {
		if !strings.Contains(p, want) {
			t.Errorf("IssueDraft lacks %q:\n%s", want, p)
		}
	}
	p = IssueRedraft("mention the header", "# Old draft", "# <Title>")
	for _, want := range []string{"mention the header", "# Old draft", "# <Title>"} {
		if !strings.Contains(p, want) {
			t.Errorf("IssueRedraft lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "Brief") {
		t.Errorf("IssueRedraft has a brief section:\n%s", p)
	}
	p = IssueReview("Review strictly.\n", "# Draft\n```\ncode\n```\n")
	if !strings.HasPrefix(p, "Review strictly.\n") || !strings.Contains(p, "````\n# Draft\n```\ncode\n```\n````") {
		t.Errorf("IssueReview:\n%s", p)
	}
}

// After a REJECT the implement prompt quotes the reviewer, fenced and marked
// as theirs, newest last; without one it says nothing of a review.
func TestImplementQuotesTheReviewer(t *testing.T) {
	l := Loop{Issue: "87", Rejections: []string{"mul must handle floats", "and ```never``` return None"}}
	p := Implement(l)
	first, second := strings.Index(p, "mul must handle floats"), strings.Index(p, "and ```never``` return None")
	if !strings.Contains(p, "## The human reviewer rejected the merge") || first < 0 || second < first {
		t.Fatalf("prompt does not quote the reviewer in order:\n%s", p)
	}
	if !strings.Contains(p, "Review 2, the reviewer's words:\n\n````\nand ```never```") {
		t.Errorf("the second reason is not fenced beyond its own backticks:\n%s", p)
	}
	if strings.Index(p, "## Your task") < second {
		t.Errorf("the reviewer's words come after the task")
	}
	if p := Implement(Loop{Issue: "87"}); strings.Contains(p, "reviewer") {
		t.Errorf("a prompt without a rejection speaks of one:\n%s", p)
	}
}

// The heading of an attempt says what happened: the first attempt is no
// retry; a later one says how the last ended. A file sent in part is shown
// as its excerpt, to be changed with FIND/REPLACE blocks.
func TestLoopAttempts(t *testing.T) {
	part := File{Path: "pkg/more.py", Content: "Outline:\n```\n12: def f():\n```\n", Sent: "outline + 1 definition", Lines: 4000}
	tests := []struct {
		name     string
		l        Loop
		scaffold bool
		want     []string
		not      []string
	}{
		{"first scaffold", Loop{Attempt: 1, Max: 3}, true, []string{"## First attempt\n"}, []string{"did not pass", "of 3"}},
		{"first implement shows the red", Loop{Attempt: 1, Max: 3, Feedback: "FAILED test_x"}, false, []string{"## First attempt: the tests' output now", "FAILED test_x"}, []string{"did not pass", "Attempt 1"}},
		{"a retry says how the last ended", Loop{Attempt: 2, Max: 3, Feedback: "assert 5 == 6", Outcome: "2 tests still fail"}, false, []string{"## Attempt 2 of 3: 2 tests still fail", "assert 5 == 6"}, []string{"First attempt"}},
		{"a file in part", Loop{Attempt: 1, Max: 3, Files: []File{part}}, false, []string{"## pkg/more.py (4000 lines: large, sent in part: outline + 1 definition; change it with FIND/REPLACE blocks only)\n\nOutline:\n```\n12: def f():\n```\n"}, []string{"````"}},
		{"a context file in part", Loop{Attempt: 1, Max: 3, Context: []File{part}}, true, []string{"## Context: pkg/more.py\n\nSent in part (outline + 1 definition of 4000 lines):\n\nOutline:"}, nil},
	}
	for _, tt := range tests {
		p := Implement(tt.l)
		if tt.scaffold {
			p = Scaffold(tt.l)
		}
		for _, w := range tt.want {
			if !strings.Contains(p, w) {
				t.Errorf("%s: no %q in\n%s", tt.name, w, p)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(p, w) {
				t.Errorf("%s: %q in\n%s", tt.name, w, p)
			}
		}
	}
}
