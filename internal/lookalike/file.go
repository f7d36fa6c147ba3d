package lookalike

import (
	"bytes"
	pathpkg "path"
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
	RunOn   []int64  // added lines whose // comment ends in a backslash, taking the next line in (C, C++)
	pending []use
	runOn   []int64         // lines that end in a backslash after a //, until Resolve
	named   map[string]bool // Names, to find one in without reading them all
}

// use is a name InCode at a place of the new version of the file.
type use struct {
	line int64 // from 1
	col  int   // its first byte in the line
	name string
}

// Scan reads one line the change adds, and its number in the new version.
// A line all ASCII costs a look at eight bytes at a time, and nothing else,
// but for one that ends in a backslash (see RunsOn).
func (f *File) Scan(line []byte, number int64) {
	if RunsOn(line) && bytes.Contains(line, []byte("//")) {
		f.runOn = append(f.runOn, number)
	}
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
	if f.named[name] {
		return
	}
	if f.named == nil {
		f.named = map[string]bool{}
	}
	f.named[name] = true
	f.Names = append(f.Names, name)
}

// Pending reports whether names or lines wait for the text of the file: see
// Resolve.
func (f *File) Pending() bool { return f != nil && len(f.pending)+len(f.runOn) > 0 }

// NeedsText reports whether Resolve needs the text of the file at path:
// names wait in a file of a language (prose and data are all text), or
// lines that end in a backslash in one where that takes a comment on (C,
// C++, told by the extension).
func (f *File) NeedsText(path string) bool {
	if f == nil {
		return false
	}
	s := syntaxOf(path, nil)
	if len(f.pending) > 0 && (s != nil || pathpkg.Ext(path) == "") { // a file with no extension may have a #! line
		return true
	}
	return len(f.runOn) > 0 && s != nil && s.splices
}

// Resolve counts, of the names waiting, those that stand in code in text,
// the new version of the file at path; the language is told by the path's
// extension or name, or by a #! line (see syntaxOf). A file of no language
// known (prose, data) is all text. Without its text (known false: too
// large to read), every one counts.
func (f *File) Resolve(path string, text []byte, known bool) {
	if !f.Pending() {
		return
	}
	pending, runOn := f.pending, f.runOn
	f.pending, f.runOn = nil, nil
	syn := syntaxOf(path, text)
	if !known {
		for _, u := range pending {
			f.add(u.name)
		}
		if syn != nil && syn.splices {
			f.RunOn = append(f.RunOn, runOn...)
		}
		return
	}
	if syn == nil {
		return
	}
	starts := lineStarts(text)
	at := func(line int64, col int) int {
		if line < 1 || line > int64(len(starts)) {
			return -1
		}
		return starts[line-1] + col
	}
	var places []int
	for _, u := range pending {
		places = append(places, at(u.line, u.col))
	}
	for i, code := range syn.inCodeAt(text, places) {
		// a place the text does not have (it changed since): counted
		if places[i] < 0 || places[i] >= len(text) || code {
			f.add(pending[i].name)
		}
	}
	if !syn.splices {
		return
	}
	// a // that stands in code opens a comment the backslash goes on with;
	// the text is lexed once for the slashes of every line
	var slashes, of []int // of: the index in runOn of each slash's line
	for k, n := range runOn {
		line := at(n, 0)
		if line < 0 {
			continue
		}
		end := len(text)
		if n < int64(len(starts)) {
			end = starts[n]
		}
		for i := line; i < end-1; i++ {
			if text[i] == '/' && text[i+1] == '/' {
				slashes, of = append(slashes, i), append(of, k)
			}
		}
	}
	opens := make([]bool, len(runOn))
	for i, code := range syn.inCodeAt(text, slashes) {
		opens[of[i]] = opens[of[i]] || code
	}
	for k, n := range runOn {
		if opens[k] {
			f.RunOn = append(f.RunOn, n)
		}
	}
}

// inCodeAt is inCode for places in any order.
func (s *syntax) inCodeAt(text []byte, places []int) []bool {
	order := make([]int, len(places))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return places[a] - places[b] })
	sorted := make([]int, len(order))
	for i, k := range order {
		sorted[i] = places[k]
	}
	code := s.inCode(text, sorted)
	out := make([]bool, len(places))
	for i, k := range order {
		out[k] = code[i]
	}
	return out
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
