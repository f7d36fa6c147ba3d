package issueflow

import (
	"slices"
	"strings"
	"testing"
)

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		name, draft, want string
		ok                bool
	}{
		{"first heading", "# Add widget export\n\n**Labels:** a\n", "Add widget export", true},
		{"after blank lines and front text", "\n\nSome preface\n# Title here  \n", "Title here", true},
		{"closing hashes stripped", "# Title ##\n", "Title", true},
		{"inside a fence ignored", "```\n# not this\n```\n# This\n", "This", true},
		{"level two is not a title", "## Summary\ntext\n", "", false},
		{"no space after hash", "#hashtag\n", "", false},
		{"empty heading", "# \n# Real\n", "Real", true},
		{"crlf", "# Windows\r\nbody\r\n", "Windows", true},
		{"tilde fence", "~~~\n# no\n~~~\n# yes\n", "yes", true},
		{"none", "plain text\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Title([]byte(tc.draft))
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Title = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestLabels covers seed 004's parse_labels: the **Labels:** line of the draft.
func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		name, draft string
		want        []string
	}{
		{"seed form", "# T\n\n**Labels:** enhancement, tdd\n", []string{"enhancement", "tdd"}},
		{"colon outside the bold", "**Labels**: bug\n", []string{"bug"}},
		{"backticks and quotes", "**Labels:** `bug`, \"good first issue\", 'ui'\n", []string{"bug", "good first issue", "ui"}},
		{"list item", "- **Labels:** a, b\n", []string{"a", "b"}},
		{"case of the key", "**labels:** a\n", []string{"a"}},
		{"duplicates folded case-insensitively", "**Labels:** Bug, bug, tdd,, \n", []string{"Bug", "tdd"}},
		{"none", "**Labels:** none\n", nil},
		{"empty", "**Labels:**\n", nil},
		{"first line only", "**Labels:** a\n**Labels:** b\n", []string{"a"}},
		{"inside a fence ignored", "```\n**Labels:** x\n```\n**Labels:** y\n", []string{"y"}},
		{"missing", "# T\nbody\n", nil},
		{"crlf", "**Labels:** a, b\r\n", []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Labels([]byte(tc.draft)); !slices.Equal(got, tc.want) {
				t.Fatalf("Labels = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBody(t *testing.T) {
	for _, tc := range []struct{ name, draft, want string }{
		{"title line removed", "# Title\n\n**Labels:** a\n\nText\n", "**Labels:** a\n\nText\n"},
		{"text before the title kept", "Intro\n# Title\nText\n", "Intro\nText\n"},
		{"no title: all of it", "Text\n", "Text\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Body([]byte(tc.draft))); got != tc.want {
				t.Fatalf("Body = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCleanAnswer(t *testing.T) {
	for _, tc := range []struct{ name, answer, want string }{
		{"plain", "# T\nbody\n", "# T\nbody\n"},
		{"trailing space and no newline", "# T\nbody  \n\n\n", "# T\nbody\n"},
		{"fenced whole", "```markdown\n# T\nbody\n```\n", "# T\nbody\n"},
		{"fenced with longer fence", "````md\n# T\n```\ncode\n```\n````", "# T\n```\ncode\n```\n"},
		{"inner fences kept", "# T\n```go\nx\n```\n", "# T\n```go\nx\n```\n"},
		{"crlf", "# T\r\nbody\r\n", "# T\nbody\n"},
		{"two blocks are not a wrapper", "```\na\n```\ntext\n```\nb\n```\n", "```\na\n```\ntext\n```\nb\n```\n"},
		{"empty", "  \n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(CleanAnswer([]byte(tc.answer))); got != tc.want {
				t.Fatalf("CleanAnswer = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSummaryLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\n\n## Verdict: APPROVED\nLooks good\n", "## Verdict: APPROVED"},
		{"   \n", ""},
		{"x\x1b[2Jy\n", "x^[[2Jy"},
	} {
		if got := SummaryLine([]byte(tc.in), 80); got != tc.want {
			t.Errorf("SummaryLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzDraft: whatever a model answers, reading its title, labels and body
// never fails, and what is filed never holds the title line twice.
func FuzzDraft(f *testing.F) {
	for _, s := range []string{"# T\n\n**Labels:** a, b\n\nbody\n", "```\n# x\n```\n# y\n", "**labels**: none", "~~~~\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		title, ok := Title([]byte(s))
		if ok && (title == "" || strings.Contains(title, "\n")) {
			t.Fatalf("title %q", title)
		}
		for _, l := range Labels([]byte(s)) {
			if l == "" || strings.Contains(l, ",") {
				t.Fatalf("label %q", l)
			}
		}
		body := Body([]byte(s))
		if len(body) > len(s) {
			t.Fatalf("body longer than the draft")
		}
		CleanAnswer([]byte(s))
	})
}
