package prompts

import (
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/gitx"
)

// Conventions are the repository's test conventions, which the scaffold
// prompt states.
type Conventions struct {
	Command   []string // the test command
	Runner    string   // pytest, go, junit, generic
	TestPaths []string // where tests go
	Examples  []File   // an existing test file or two, to copy the style of
}

// Loop is what git tdd run tells the agent at a node.
type Loop struct {
	Issue       string
	LLD         File
	Context     []File
	Conventions Conventions
	// Feedback is why the last attempt did not pass: the gate's verdict and
	// the end of the test output; at the first attempt of N3, the red's output.
	Feedback string
	// Outcome says in a few words how the last attempt ended ("2 tests
	// still fail"); "" at a first attempt.
	Outcome string
	Attempt int // 1-based
	Max     int
	// Files are what the implementation may change (N3): small ones shown
	// whole, large ones to be patched with FIND/REPLACE blocks.
	Files []File
	// Tests are the failing tests N3 must make pass.
	Tests    []File
	MaxLines int
	MaxBytes int
	// EditsFiles: the agent edits the worktree itself instead of answering
	// with files.
	EditsFiles bool
	// Rejections are what the human reviewer said, oldest first, each time
	// they rejected the merge (N3 after a REJECT).
	Rejections []string
}

// Scaffold is N1's prompt: write failing tests for the design, and nothing else.
func Scaffold(l Loop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are writing the tests for issue #%s, test first: the tests must FAIL now, because the code they test does not exist yet (or is wrong), and pass once it is written.\n\n", l.Issue)
	l.shared(&b)
	c := l.Conventions
	fmt.Fprintf(&b, "## The repository's tests\n\nThey run with `%s` (runner: %s). Test files live in: %s.\n\n", strings.Join(c.Command, " "), c.Runner, strings.Join(c.TestPaths, ", "))
	for _, e := range c.Examples {
		fmt.Fprintf(&b, "An existing test, to follow its style: %s\n\n%s\n\n", e.Path, e.shown())
	}
	b.WriteString("## Your task\n\n" +
		"Write the tests the design asks for. Only test files and test configuration may change: any other file is refused.\n" +
		"Each test must fail by assertion (or by importing a name of this repository that does not exist yet), not by an error of its own: a test that only says `assert False` or skips is refused.\n\n")
	l.feedback(&b)
	l.answerFormat(&b, true)
	return b.String()
}

// Implement is N3's prompt: make the failing tests pass, without touching them.
func Implement(l Loop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are implementing issue #%s. The tests below fail; change the code so that they pass, and every other test still passes.\n\n", l.Issue)
	l.shared(&b)
	for _, t := range l.Tests {
		fmt.Fprintf(&b, "## Failing test: %s\n\n%s\n\n", t.Path, t.shown())
	}
	for _, f := range l.Files {
		if f.Partial() {
			fmt.Fprintf(&b, "## %s (%d lines: large, sent in part: %s; change it with FIND/REPLACE blocks only)\n\n%s\n", f.Path, f.Lines, f.Sent, f.Content)
		} else if IsLarge([]byte(f.Content), l.MaxLines, l.MaxBytes) {
			fmt.Fprintf(&b, "## %s (%d lines: large, change it with FIND/REPLACE blocks only)\n\n%s\n\n", f.Path, gitx.CountLines([]byte(f.Content)), fenced(f.Content))
		} else {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", f.Path, fenced(f.Content))
		}
	}
	l.rejections(&b)
	b.WriteString("## Your task\n\nWrite the code the design asks for. Do NOT change any test, test data or test configuration (conftest.py, pytest.ini, pyproject.toml's pytest section): such a change is refused and rolled back.\n\n")
	l.feedback(&b)
	l.answerFormat(&b, false)
	return b.String()
}

func (l Loop) shared(b *strings.Builder) {
	if l.LLD.Content != "" {
		fmt.Fprintf(b, "## The design: %s\n\n%s\n\n", l.LLD.Path, strings.TrimSpace(l.LLD.Content))
	}
	for _, f := range l.Context {
		fmt.Fprintf(b, "## Context: %s\n\n%s\n\n", f.Path, f.shown())
	}
}

// rejections quote the human reviewer, marked as theirs: the tests pass, and
// the change is still not what they want.
func (l Loop) rejections(b *strings.Builder) {
	if len(l.Rejections) == 0 {
		return
	}
	b.WriteString("## The human reviewer rejected the merge\n\nThe tests pass, but a person reviewed the change at the merge question and rejected it. Their words, as they typed them (oldest first):\n\n")
	for i, r := range l.Rejections {
		fmt.Fprintf(b, "Review %d, the reviewer's words:\n\n%s\n\n", i+1, fenced(r))
	}
	b.WriteString("Change the code as the reviewer asks; the tests must still pass.\n\n")
}

// shown is the file as a prompt shows it: fenced when whole, the excerpt
// (which fences its own lines) when sent in part.
func (f File) shown() string {
	if f.Partial() {
		return fmt.Sprintf("Sent in part (%s of %d lines):\n\n%s", f.Sent, f.Lines, strings.TrimRight(f.Content, "\n"))
	}
	return fenced(f.Content)
}

// feedback says which attempt this is and how the last one went: "First
// attempt" (at N3 with the red's output), or "Attempt 2 of 3: 2 tests still
// fail" with the gate's verdict and the end of the test output.
func (l Loop) feedback(b *strings.Builder) {
	if l.Attempt <= 1 || l.Outcome == "" {
		if l.Feedback == "" {
			b.WriteString("## First attempt\n\n")
			return
		}
		fmt.Fprintf(b, "## First attempt: the tests' output now\n\n%s\n\n", fenced(l.Feedback))
		return
	}
	fmt.Fprintf(b, "## Attempt %d of %d: %s\n\nHow the last attempt ended:\n\n%s\n\n", l.Attempt, l.Max, l.Outcome, fenced(l.Feedback))
}

func (l Loop) answerFormat(b *strings.Builder, tests bool) {
	if l.EditsFiles {
		b.WriteString("Make the changes in the working tree yourself; you are in it. Do not commit.\n")
		return
	}
	what := "file"
	if tests {
		what = "test file"
	}
	fmt.Fprintf(b, `## How to answer

For each %s you create or change, a line "### FILE: <path>" (relative to the repository's top), then either
- the whole file in one fenced block (new files, and files that are not large), or
- for a large file, FIND/REPLACE blocks:

### FILE: <path>
### CHANGE 1: <what it does>
FIND:
`+"```"+`
<lines copied exactly from the file, with enough context to match once>
`+"```"+`
REPLACE WITH:
`+"```"+`
<the lines that take their place>
`+"```"+`

Paths outside the repository are refused. Nothing you write is run except by the test command.
`, what)
}

func fenced(s string) string {
	f := fence(s)
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
