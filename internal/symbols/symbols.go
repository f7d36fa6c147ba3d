// Package symbols reads the definitions of Python and Go source and tells which
// of them a change removed, moved to another file or renamed.
package symbols

import (
	"hash/maphash"
	"path"
	"slices"
	"strings"
)

// Language is a source language whose definitions are read.
type Language int

// The languages read; None is every other file.
const (
	None Language = iota
	Python
	Go
)

// LanguageOf tells a file's language by its name.
func LanguageOf(p string) Language {
	switch path.Ext(p) {
	case ".py":
		return Python
	case ".go":
		return Go
	}
	return None
}

// Def is one definition. Name is qualified by the classes a Python definition
// is nested in ("Cache.get") and by a Go method's receiver type ("Cache.Get").
type Def struct {
	Kind   string // "def" or "class" in Python; "func", "method", "type", "var" or "const" in Go
	Name   string
	Parent string // the Python class it is nested in, "" at the top level
	at     int    // where it is: a statement (Python) or a declaration (Go)
}

// Ref names a definition: how the review and the JSON report show it.
type Ref struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

func (r Ref) String() string { return r.Kind + " " + r.Name }

// Ref names the definition.
func (d Def) Ref() Ref { return Ref{Name: d.Name, Kind: d.Kind} }

// Source is a parsed file: what it defines, and what their bodies are made of.
type Source struct {
	Defs []Def
	py   *pythonSource
	goes *goSource
}

// Parse reads the definitions of a Python or Go file; an error means it does
// not parse.
func Parse(lang Language, src []byte) (*Source, error) {
	switch lang {
	case Python:
		return parsePython(src)
	case Go:
		return parseGo(src)
	}
	return &Source{}, nil
}

// Body is the body of the i-th definition.
func (s *Source) Body(i int) Body {
	switch {
	case s.py != nil:
		return s.py.body(s.Defs[i])
	case s.goes != nil:
		return goBody(s.goes.src, s.goes.spans[s.Defs[i].at])
	}
	return nil
}

// Body is a definition's text as a sequence of line hashes: comments and
// layout left out, its own name blanked, so that only what it does counts.
type Body []uint64

// Equal reports whether two bodies are the same, line for line.
func (b Body) Equal(o Body) bool { return slices.Equal(b, o) }

// Kept is the share of a's lines that b has too, each line counted as often as
// it occurs: how much of a definition survives in another.
func Kept(a, b Body) float64 {
	if len(a) == 0 {
		return 0
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	kept := 0
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			kept++
			i++
			j++
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return float64(kept) / float64(len(a))
}

var seed = maphash.MakeSeed()

func hashLine(s string) uint64 { return maphash.String(seed, s) }

// blankName removes the first whole-word occurrence of name from code.
func blankName(code, name string) string {
	for from := 0; ; {
		i := strings.Index(code[from:], name)
		if i < 0 {
			return code
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isIdent(code[i-1])) && (end == len(code) || !isIdent(code[end])) {
			return code[:i] + code[end:]
		}
		from = i + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
