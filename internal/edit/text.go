// Package edit applies changes to text: FIND/REPLACE blocks (the seed's format
// and aider's), unified diff hunks and Codex patches, matched by content with
// exact and whitespace-tolerant tiers, and the write strategies append, insert,
// extend and replace. It keeps a file's BOM, line endings and missing final
// newline, and never touches the disk.
package edit

import (
	"bytes"
	"slices"
	"strings"
)

// Text is a file split into lines, each keeping its own line ending, so that an
// edit changes nothing but the lines it replaces.
type Text struct {
	BOM   bool
	Lines []Line
}

// Line is one line without its ending; EOL is "\n", "\r\n", or "" for a last
// line without a newline.
type Line struct {
	S   string
	EOL string
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Parse splits data into lines.
func Parse(data []byte) *Text {
	t := &Text{}
	if bytes.HasPrefix(data, bom) {
		t.BOM, data = true, data[len(bom):]
	}
	s := string(data)
	t.Lines = make([]Line, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.Lines = append(t.Lines, Line{S: s})
			break
		}
		line, eol := s[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
		}
		t.Lines = append(t.Lines, Line{S: line, EOL: eol})
		s = s[i+1:]
	}
	return t
}

// Bytes joins the lines back.
func (t *Text) Bytes() []byte {
	var b bytes.Buffer
	n := len(bom)
	for _, l := range t.Lines {
		n += len(l.S) + len(l.EOL)
	}
	b.Grow(n)
	if t.BOM {
		b.Write(bom)
	}
	for _, l := range t.Lines {
		b.WriteString(l.S)
		b.WriteString(l.EOL)
	}
	return b.Bytes()
}

// EOL is the line ending most lines use ("\n" for a file without any).
func (t *Text) EOL() string {
	crlf, lf := 0, 0
	for _, l := range t.Lines {
		switch l.EOL {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// Strings returns the lines without endings.
func (t *Text) Strings() []string {
	out := make([]string, len(t.Lines))
	for i, l := range t.Lines {
		out[i] = l.S
	}
	return out
}

// Splice replaces lines [from, to) with repl. The new lines take the line ending
// of the lines they replace (the file's usual one for an insertion); when the
// replaced lines ended the file without a newline, the new last line does too.
func (t *Text) Splice(from, to int, repl []string) {
	var eol, lastEOL string
	switch {
	case to > from:
		eol, lastEOL = t.Lines[from].EOL, t.Lines[to-1].EOL
		if eol == "" {
			eol = t.EOL()
		}
	case to == len(t.Lines) && from > 0 && t.Lines[from-1].EOL == "":
		eol = t.EOL()
		t.Lines[from-1].EOL = eol // inserting after a last line without a newline
	default:
		eol = t.EOL()
		lastEOL = eol
	}
	nl := make([]Line, len(repl))
	for i, s := range repl {
		nl[i] = Line{S: s, EOL: eol}
	}
	if len(nl) > 0 {
		nl[len(nl)-1].EOL = lastEOL
	} else if to == len(t.Lines) && to > from && from > 0 && lastEOL == "" {
		t.Lines[from-1].EOL = "" // the removed lines ended the file without a newline
	}
	t.Lines = slices.Replace(t.Lines, from, to, nl...)
}

// SplitLines splits block text into lines; a final newline ends the last line
// rather than starting an empty one.
func SplitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
