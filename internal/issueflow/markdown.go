package issueflow

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/term"
)

// lines splits a Markdown text into lines without their ends, and reports for
// each whether it is inside a fenced code block (where headings and the labels
// line are only text).
func lines(text []byte) (out []string, fenced []bool) {
	fence := ""
	for _, l := range strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if f := fenceOf(trimmed); f != "" && (fence == "" || (f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "")) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
			out, fenced = append(out, l), append(fenced, true)
			continue
		}
		out, fenced = append(out, l), append(fenced, fence != "")
	}
	return out, fenced
}

// fenceOf is the run of ``` or ~~~ (three or more) a line starts with, or "".
func fenceOf(l string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(l) && l[n] == c {
			n++
		}
		if n >= 3 {
			return l[:n]
		}
	}
	return ""
}

var heading = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^ {0,3}# +(.*?)(?: +#+)? *$`)
})

// titleLine finds the draft's title: its first level-one ATX heading outside
// code blocks that has text.
func titleLine(text []byte) (int, string) {
	ls, fenced := lines(text)
	for i, l := range ls {
		if fenced[i] {
			continue
		}
		if m := heading().FindStringSubmatch(l); m != nil && strings.TrimSpace(m[1]) != "" {
			return i, strings.TrimSpace(m[1])
		}
	}
	return -1, ""
}

// Title is the title: the text of the draft's first "# " heading.
func Title(draft []byte) (string, bool) {
	i, t := titleLine(draft)
	return t, i >= 0
}

// Body is what is filed as the text: the draft without its title line,
// which becomes the title.
func Body(draft []byte) []byte {
	i, _ := titleLine(draft)
	if i < 0 {
		return draft
	}
	ls := strings.SplitAfter(string(draft), "\n")
	rest := strings.Join(ls[i+1:], "")
	head := strings.Join(ls[:i], "")
	if head == "" {
		rest = strings.TrimLeft(rest, "\r\n")
	}
	return []byte(head + rest)
}

var labelsLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:[-*+]\s+)?\*\*labels:?\*\*:?(.*)$`)
})

// Labels are the labels the draft names on its first **Labels:** line (seed
// 004's parse_labels): comma-separated, quotes and backticks removed, the
// same label once (GitHub compares them without case). "none" names none.
func Labels(draft []byte) []string {
	ls, fenced := lines(draft)
	for i, l := range ls {
		if fenced[i] {
			continue
		}
		m := labelsLine().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var out []string
		seen := map[string]bool{}
		for _, f := range strings.Split(m[1], ",") {
			f = strings.Trim(strings.TrimSpace(f), "`\"'")
			f = strings.TrimSpace(f)
			key := strings.ToLower(f)
			if f == "" || key == "none" || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, f)
		}
		return out
	}
	return nil
}

// CleanAnswer is a model's draft or verdict as it is saved: line ends made
// \n, trailing spaces and blank lines dropped, and one code fence around the
// whole answer (models like to add one) removed.
func CleanAnswer(answer []byte) []byte {
	s := strings.ReplaceAll(string(answer), "\r\n", "\n")
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) >= 2 {
		first, last := strings.TrimSpace(ls[0]), strings.TrimSpace(ls[len(ls)-1])
		if f := fenceOf(first); f != "" && last == f && allFenced(ls) {
			ls = ls[1 : len(ls)-1]
		}
	}
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t")
	}
	out := strings.TrimSpace(strings.Join(ls, "\n"))
	if out == "" {
		return nil
	}
	return []byte(out + "\n")
}

// allFenced reports whether every line is inside one code block or
// another: a whole answer in a fence, not two blocks with text between them.
func allFenced(ls []string) bool {
	_, fenced := lines([]byte(strings.Join(ls, "\n")))
	for _, f := range fenced {
		if !f {
			return false
		}
	}
	return true
}

// SummaryLine is the first line of text with something in it, made safe for a
// terminal and cut to max runes.
func SummaryLine(text []byte, max int) string {
	for _, l := range bytes.Split(text, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" {
			return term.Line(s, max)
		}
	}
	return ""
}
