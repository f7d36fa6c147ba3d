package gittdd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// Every relative link of the README and docs/ names a file that exists, and
// every #anchor a heading of the file it points into, as GitHub makes anchors.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	checked := 0
	for _, file := range files {
		for _, target := range links(readText(t, file)) {
			checked++
			if err := resolve(file, target); err != nil {
				t.Errorf("%s: link %s: %v", file, target, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links checked: is the link syntax still [text](target)?", checked)
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// links are the targets of a markdown file's links outside fenced code blocks,
// but for URLs.
func links(text string) []string {
	var out []string
	for _, line := range prose(text) {
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			if !regexp.MustCompile(`^[a-z]+:`).MatchString(m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// resolve says why target, linked from file, does not exist.
func resolve(file, target string) error {
	path, anchor, _ := strings.Cut(target, "#")
	if path == "" {
		path = file
	} else {
		path = filepath.Join(filepath.Dir(file), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if anchor == "" {
		return nil
	}
	if !strings.HasSuffix(path, ".md") {
		return fmt.Errorf("an anchor into %s, which has no headings", path)
	}
	for _, a := range anchors(string(data)) {
		if a == anchor {
			return nil
		}
	}
	return fmt.Errorf("%s has no heading #%s", path, anchor)
}

// anchors are the ids GitHub gives a markdown file's headings: lower case,
// punctuation but - and _ dropped, spaces as -, a repeated id numbered.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range prose(text) {
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		a := slug(heading)
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// prose is the lines of a markdown file outside its fenced code blocks; a
// fence closes only with as many backticks as opened it (a ```` block holds
// ``` ones).
func prose(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		ticks := trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
		switch {
		case fence == "" && len(ticks) >= 3:
			fence = ticks
		case fence != "" && ticks == trimmed && len(ticks) >= len(fence):
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return out
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"What the hooks stop, and what only CI can", "what-the-hooks-stop-and-what-only-ci-can"},
		{"`--strict`", "--strict"},
		{"Try it first: a scripted agent, no API key", "try-it-first-a-scripted-agent-no-api-key"},
		{"Writing code safely: `write`, `patch`, `context`, `prompt`", "writing-code-safely-write-patch-context-prompt"},
		{"The TDD lifecycle: `git tdd`", "the-tdd-lifecycle-git-tdd"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}
