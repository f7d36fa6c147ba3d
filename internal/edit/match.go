package edit

import (
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// Tier is how loosely a block matched.
type Tier string

// The matching tiers, strictest first. Line endings never matter: every tier
// compares lines without them.
const (
	Exact              Tier = "exact"
	TrailingWhitespace Tier = "trailing-whitespace"
	Indentation        Tier = "indentation"
	BlankLines         Tier = "blank-lines"
)

var tiers = []Tier{Exact, TrailingWhitespace, Indentation, BlankLines}

// Match is where a block's FIND lines were found: file lines [Start, End).
type Match struct {
	Start, End int
	Tier       Tier
	// reindent turns the block's REPLACE lines into the file's indentation
	// (the indentation tier); nil keeps them as written.
	reindent func([]string) []string
}

// Find returns the matches of find in lines in the strictest tier that has any:
// the tolerant tiers are tried only when nothing matched exactly.
func Find(lines, find []string) []Match {
	if len(find) == 0 {
		return nil
	}
	if ms := findExact(lines, find); len(ms) > 0 {
		return ms
	}
	return findTolerant(lines, find)
}

// findTolerant tries the whitespace-tolerant tiers, strictest first.
func findTolerant(lines, find []string) []Match {
	for _, t := range tiers[1:] {
		if ms := findIn(lines, find, t); len(ms) > 0 {
			return ms
		}
	}
	return nil
}

func findIn(lines, find []string, t Tier) []Match {
	var out []Match
	switch t {
	case BlankLines:
		return findIgnoringBlank(lines, find)
	}
	// the first line, compared as the tier compares it, rules out most places
	// before the whole window is looked at
	first, norm := trimRight(find[0]), trimRight
	if t == Indentation {
		norm = strings.TrimSpace
		first = norm(first)
	}
	for i := 0; i+len(find) <= len(lines); i++ {
		if norm(lines[i]) != first {
			continue
		}
		window := lines[i : i+len(find)]
		switch t {
		case TrailingWhitespace:
			if equal(window, find, trimRight) {
				out = append(out, Match{Start: i, End: i + len(find), Tier: t})
			}
		case Indentation:
			if re, ok := shifted(window, find); ok {
				out = append(out, Match{Start: i, End: i + len(find), Tier: t, reindent: re})
			}
		}
	}
	return out
}

// findExact is the common case, kept cheap: a first-line test, then the rest.
func findExact(lines, find []string) []Match {
	var out []Match
	first, n := find[0], len(find)
	for i := 0; i+n <= len(lines); i++ {
		if lines[i] == first && slices.Equal(lines[i+1:i+n], find[1:]) {
			out = append(out, Match{Start: i, End: i + n, Tier: Exact})
		}
	}
	return out
}

func equal(a, b []string, norm func(string) string) bool {
	for i := range a {
		if norm(a[i]) != norm(b[i]) {
			return false
		}
	}
	return true
}

// trimRight drops the spaces and tabs at the end of s (a loop: TrimRight's
// cutset costs more, and the tolerant tiers call this for every line).
func trimRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// findIgnoringBlank matches the non-blank lines of find against the file's
// non-blank lines (trailing whitespace ignored). The match spans from the first
// to the last matched line, and takes in as many of the file's blank lines
// around it as find has at its ends: the replacement, which ends like find,
// then takes their place instead of adding to them.
func findIgnoringBlank(lines, find []string) []Match {
	var want []string
	for _, f := range find {
		if trimRight(f) != "" {
			want = append(want, trimRight(f))
		}
	}
	if len(want) == 0 {
		return nil
	}
	lead, trail := blankEnds(find)
	out := matchNonBlank(lines, want)
	for i := range out {
		m := &out[i]
		for k := 0; k < lead && m.Start > 0 && trimRight(lines[m.Start-1]) == ""; k++ {
			m.Start--
		}
		for k := 0; k < trail && m.End < len(lines) && trimRight(lines[m.End]) == ""; k++ {
			m.End++
		}
	}
	return out
}

// blankEnds counts the blank lines at the start and at the end of ls.
func blankEnds(ls []string) (lead, trail int) {
	for lead < len(ls) && trimRight(ls[lead]) == "" {
		lead++
	}
	for trail < len(ls)-lead && trimRight(ls[len(ls)-1-trail]) == "" {
		trail++
	}
	return lead, trail
}

// matchNonBlank finds want, line after line, skipping the file's blank lines.
func matchNonBlank(lines, want []string) []Match {
	var out []Match
	for i := range lines {
		if trimRight(lines[i]) != want[0] {
			continue
		}
		j, k := i, 0
		for j < len(lines) && k < len(want) {
			switch {
			case trimRight(lines[j]) == "":
				j++
			case trimRight(lines[j]) == want[k]:
				j, k = j+1, k+1
			default:
				j = len(lines) + 1
			}
		}
		if k == len(want) {
			out = append(out, Match{Start: i, End: j, Tier: BlankLines})
		}
	}
	return out
}

// shifted reports whether window is find with its indentation shifted by one
// consistent amount (tabs and spaces compared by width), and returns how to shift
// the replacement the same way, in the file's own indentation characters.
func shifted(window, find []string) (func([]string) []string, bool) {
	delta, set := 0, false
	blankOnly := true
	for i := range find {
		f, w := trimRight(find[i]), trimRight(window[i])
		if f == "" && w == "" {
			continue
		}
		if (f == "") != (w == "") || strings.TrimLeft(f, " \t") != strings.TrimLeft(w, " \t") {
			return nil, false
		}
		blankOnly = false
		d := width(indentOf(w)) - width(indentOf(f))
		if !set {
			delta, set = d, true
		} else if d != delta {
			return nil, false
		}
	}
	if blankOnly {
		return nil, false
	}
	unit := indentUnit(window)
	return func(repl []string) []string {
		out := make([]string, len(repl))
		for i, r := range repl {
			if trimRight(r) == "" {
				out[i] = ""
				continue
			}
			w := max(width(indentOf(r))+delta, 0)
			out[i] = render(w, unit) + strings.TrimLeft(r, " \t")
		}
		return out
	}, true
}

func indentOf(s string) string { return pysource.IndentOf(s) }

func width(indent string) int { return pysource.Width(indent) }

// indentUnit is "\t" when the region is indented with tabs, else " ".
func indentUnit(lines []string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "\t") {
			return "\t"
		}
	}
	return " "
}

func render(w int, unit string) string {
	if unit == "\t" {
		return strings.Repeat("\t", w/pysource.TabWidth) + strings.Repeat(" ", w%pysource.TabWidth)
	}
	return strings.Repeat(" ", w)
}
