package term

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// FoldMark starts each piece of a folded line after the first.
const FoldMark = "…"

// Fold cuts a line that Line rendered into pieces that fit a screen of cols
// columns when printed from column indent (after a mark of that width), one
// under another, each after the first behind FoldMark: joined again, the
// pieces are the line, not a byte lost. An escape (\u{…}, \x{…}, ^X) stays in
// one piece with the backslashes Line doubled before it (cut between two of
// them, the next piece would read as an escape that is text, or as text that
// is an escape), a combining mark with the character it stands on; a tab
// reaches the next multiple of 8 columns of the screen, a wide character
// takes two, and so does FoldMark, which a terminal set for East Asian text
// draws wide (a piece may end a column short of the edge, never past it). A
// piece is wider than the screen only when one such unit is.
func Fold(s string, cols, indent int) []string {
	width := cols - indent
	// a character takes at most as many columns as it has bytes, but a tab
	if width < 2 || len(s) <= width && strings.IndexByte(s, '\t') < 0 {
		return []string{s}
	}
	var pieces []string
	start, col := 0, indent
	plain := 0 // s[i:plain] are backslashes that end in no escape: one column each
	next := func(i, col int) (int, int) {
		if i < plain {
			return i + 1, 1
		}
		end, w := unit(s, i, col)
		if s[i] == '\\' && end == i+1 {
			plain = backslashRun(s, i) // read once, not again from each of them
		}
		return end, w
	}
	for i := 0; i < len(s); {
		end, w := next(i, col)
		if col+w > cols && i > start {
			pieces = append(pieces, s[start:i])
			start, col = i, indent+markCols
			end, w = next(i, col)
		}
		col += w
		i = end
	}
	return append(pieces, s[start:])
}

// backslashRun is the end of the run of backslashes that starts at s[i].
func backslashRun(s string, i int) int {
	for i < len(s) && s[i] == '\\' {
		i++
	}
	return i
}

// markCols is the most columns a terminal gives FoldMark (U+2026 is of East
// Asian ambiguous width).
const markCols = 2

// unit is the end of the unit of text that starts at s[i], and the columns it
// takes from column col.
func unit(s string, i, col int) (end, cols int) {
	c := s[i]
	switch {
	case c == '\t':
		return i + 1, 8 - col%8
	case c == '\\':
		j := backslashRun(s, i)
		if n := escapeLen(s[j-1:]); n > 0 { // the run, and the escape it ends in
			return j - 1 + n, j - 1 - i + n
		}
		return i + 1, 1
	case c == '^' && i+1 < len(s) && (s[i+1] >= '@' && s[i+1] <= '_' || s[i+1] == '?'):
		return i + 2, 2
	case c < utf8.RuneSelf:
		return i + 1, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	end, cols = i+size, runeCols(r)
	for end < len(s) && s[end] >= utf8.RuneSelf {
		m, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsMark(m) {
			break
		}
		end, cols = end+size, cols+runeCols(m)
	}
	return end, cols
}

// escapeLen is the length of the escape \u{hex} or \x{hex} at the start of s, or 0.
func escapeLen(s string) int {
	if len(s) < 4 || s[0] != '\\' || (s[1] != 'u' && s[1] != 'x') || s[2] != '{' {
		return 0
	}
	for j := 3; j < len(s) && j < 12; j++ {
		switch c := s[j]; {
		case c == '}' && j > 3:
			return j + 1
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
		default:
			return 0
		}
	}
	return 0
}

// Cols is the columns a terminal gives a text Path or Line rendered (no
// tab, no control): two for a wide character, none for a combining mark.
func Cols(s string) int {
	n := 0
	for _, r := range s {
		n += runeCols(r)
	}
	return n
}

// runeCols is the columns a terminal gives a character: two for the wide
// and fullwidth ones of East Asian scripts, none for a mark standing on
// another character, one for the rest.
func runeCols(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r < 0x1100:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
