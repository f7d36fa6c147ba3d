// Package prompts writes the instructions an agent gets for one file: the whole
// file when it is new or small, FIND/REPLACE blocks when it is large (seed 003).
package prompts

import (
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/gitx"
)

// The generation strategies of seed 003.
const (
	Standard = "standard" // the agent answers with the whole file
	Diff     = "diff"     // the agent answers with FIND/REPLACE blocks
)

// IsLarge is seed 003's rule: more than maxLines lines, or more than maxBytes bytes.
func IsLarge(content []byte, maxLines, maxBytes int) bool {
	return gitx.CountLines(content) > int64(maxLines) || len(content) > maxBytes
}

// Strategy chooses how to ask: an added file is always written whole; a modified
// one is patched when it is large.
func Strategy(change string, existing []byte, maxLines, maxBytes int) string {
	if change == "add" || !IsLarge(existing, maxLines, maxBytes) {
		return Standard
	}
	return Diff
}

// File is a file given to the agent: as it is, or the part of it that fits
// (excerpt.Part).
type File struct {
	Path    string
	Content string
	Sent    string // "whole", "" or what part Content is ("outline + 3 definitions")
	Lines   int    // of the file, when sent in part
	Bytes   int
}

// Partial reports whether the file is sent in part.
func (f File) Partial() bool { return f.Sent != "" && f.Sent != "whole" }

// Request is what the prompt is about.
type Request struct {
	Path     string
	Change   string // "add" or "modify"
	Existing []byte // the file as it is; nil when added
	LLD      string // the design document
	Tests    []File // the tests the change must pass
	MaxLines int
	MaxBytes int
}

// Build writes the prompt and says which strategy it asks for.
func Build(r Request) (string, string) {
	strategy := Strategy(r.Change, r.Existing, r.MaxLines, r.MaxBytes)
	var b strings.Builder
	if r.LLD != "" {
		fmt.Fprintf(&b, "## The design\n\n%s\n\n", strings.TrimSpace(r.LLD))
	}
	for _, t := range r.Tests {
		fmt.Fprintf(&b, "## Test: %s\n\n%s\n%s\n%s\n\n", t.Path, fence(t.Content), strings.TrimRight(t.Content, "\n"), fence(t.Content))
	}
	switch {
	case r.Change == "add":
		fmt.Fprintf(&b, "## Your task\n\nCreate the new file `%s`.\n\n", r.Path)
		standardFormat(&b, r.Path)
	case strategy == Standard:
		fmt.Fprintf(&b, "## The file as it is: %s\n\n%s\n%s\n%s\n\n", r.Path, fence(string(r.Existing)), strings.TrimRight(string(r.Existing), "\n"), fence(string(r.Existing)))
		fmt.Fprintf(&b, "## Your task\n\nChange `%s` as the design asks, keeping everything else as it is.\n\n", r.Path)
		standardFormat(&b, r.Path)
	default:
		fmt.Fprintf(&b, "## The file as it is: %s (%d lines)\n\n%s\n%s\n%s\n\n", r.Path, gitx.CountLines(r.Existing), fence(string(r.Existing)), strings.TrimRight(string(r.Existing), "\n"), fence(string(r.Existing)))
		fmt.Fprintf(&b, "## Your task\n\nChange `%s` as the design asks. The file is large: do NOT write it out whole. Answer with FIND/REPLACE blocks only.\n\n", r.Path)
		diffFormat(&b, r.Path)
	}
	return b.String(), strategy
}

func standardFormat(b *strings.Builder, path string) {
	fmt.Fprintf(b, "Answer with the whole file, in exactly this form and nothing else:\n\n### FILE: %s\n```\n<every line of the file>\n```\n", path)
}

func diffFormat(b *strings.Builder, path string) {
	fmt.Fprintf(b, `Answer with one or more changes, in exactly this form:

### FILE: %s

### CHANGE 1: <what this change does>
FIND:
`+"```"+`
<lines copied exactly from the file>
`+"```"+`

REPLACE WITH:
`+"```"+`
<the lines that take their place>
`+"```"+`

Rules:
- FIND must be copied exactly from the file: same characters, same indentation, whole lines.
- Include enough context in each FIND block to match uniquely: exactly one place in the file. If a line occurs more than once, add the lines around it until the block occurs once.
- Keep each FIND block small: the lines that change, plus the context that makes it unique.
- The changes are applied in order, top to bottom, each to the result of the ones before; they must not overlap.
- To delete lines, leave REPLACE WITH empty; to add lines, FIND the lines next to where they go and repeat them in REPLACE WITH with the new lines.
- If a change fails to apply, none is applied, and you will be told which one and why.
`, path)
}

// fence returns a code fence longer than any run of backticks in s.
func fence(s string) string {
	n, run := 3, 0
	for _, c := range s {
		if c == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", n)
}
