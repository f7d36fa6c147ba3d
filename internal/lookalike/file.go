package lookalike

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/git-tdd/git-tdd/internal/term"
)

// File is what the lines a change adds to one file hold: the uses of names
// that read as others, and the names. A name that reads as another only in
// code waits (Pending) for the file's text, which says whether it stands in
// code or in a comment or a string (Resolve).
type File struct {
	Count   int64    // uses of the names, in the added lines
	Names   []string // each name once, in the order found
	pending []use
}

// use is a name InCode at a place of the new version of the file.
type use struct {
	line int64 // from 1
	col  int   // its first byte in the line
	name string
}

// Scan reads one line the change adds, and its number in the new version.
// A line all ASCII costs a look at eight bytes at a time, and nothing else.
func (f *File) Scan(line []byte, number int64) {
	i := term.ASCIIPrefix(line)
	if i == len(line) {
		return
	}
	for i > 0 && term.NameRune(rune(line[i-1])) { // back to the start of the name
		i--
	}
	for i < len(line) {
		r, size := utf8.DecodeRune(line[i:])
		if !term.NameRune(r) || r == utf8.RuneError && size <= 1 {
			i += size
			continue
		}
		start, ascii := i, true
		for i < len(line) {
			r, size := utf8.DecodeRune(line[i:])
			if !term.NameRune(r) || r == utf8.RuneError && size <= 1 {
				break
			}
			ascii = ascii && r < utf8.RuneSelf
			i += size
		}
		if ascii {
			continue
		}
		name := string(line[start:i])
		switch Classify(name) {
		case Anywhere:
			f.add(name)
		case InCode:
			f.pending = append(f.pending, use{number, start, name})
		}
	}
}

func (f *File) add(name string) {
	f.Count++
	if !slices.Contains(f.Names, name) {
		f.Names = append(f.Names, name)
	}
}

// Pending reports whether names wait for the text of the file: see Resolve.
func (f *File) Pending() bool { return f != nil && len(f.pending) > 0 }

// Resolve counts, of the names waiting, those that stand in code in text,
// the new version of the file at path; the language is told by the path's
// extension or name, or by a #! line (see syntaxOf). A file of no language
// known (prose, data) is all text. Without its text (known false: too
// large to read), every one counts.
func (f *File) Resolve(path string, text []byte, known bool) {
	if !f.Pending() {
		return
	}
	pending := f.pending
	f.pending = nil
	if !known {
		for _, u := range pending {
			f.add(u.name)
		}
		return
	}
	syn := syntaxOf(path, text)
	if syn == nil {
		return
	}
	starts := lineStarts(text)
	offsets := make([]int, len(pending))
	for i, u := range pending {
		offsets[i] = -1
		if u.line >= 1 && u.line <= int64(len(starts)) {
			offsets[i] = starts[u.line-1] + u.col
		}
	}
	order := make([]int, len(pending))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return offsets[a] - offsets[b] })
	sorted := make([]int, len(order))
	for i, k := range order {
		sorted[i] = offsets[k]
	}
	code := syn.inCode(text, sorted)
	for i, k := range order {
		// a place the text does not have (it changed since): counted
		if sorted[i] < 0 || sorted[i] >= len(text) || code[i] {
			f.add(pending[k].name)
		}
	}
}

// lineStarts are the offsets of the lines of text.
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}
