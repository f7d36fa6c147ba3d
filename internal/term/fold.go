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
// under another, each after the first behind FoldMark (one column): joined
// again, the pieces are the line, not a byte lost. An escape (\u{…}, \x{…},
// ^X) stays in one piece, a combining mark with the character it stands on;
// a tab reaches the next multiple of 8 columns of the screen, a wide
// character takes two. A piece is wider than the screen only when one such
// unit is.
func Fold(s string, cols, indent int) []string {
	width := cols - indent
	// a character takes at most as many columns as it has bytes, but a tab
	if width < 2 || len(s) <= width && strings.IndexByte(s, '\t') < 0 {
		return []string{s}
	}
	var pieces []string
	start, col := 0, indent
	for i := 0; i < len(s); {
		end, w := unit(s, i, col)
		if col+w > cols && i > start {
			pieces = append(pieces, s[start:i])
			start, col = i, indent+utf8.RuneCountInString(FoldMark)
			end, w = unit(s, i, col)
		}
		col += w
		i = end
	}
	return append(pieces, s[start:])
}

// unit is the end of the unit of text that starts at s[i], and the columns it
// takes from column col.
func unit(s string, i, col int) (end, cols int) {
	c := s[i]
	switch {
	case c == '\t':
		return i + 1, 8 - col%8
	case c == '\\':
		if n := escapeLen(s[i:]); n > 0 {
			return i + n, n
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
