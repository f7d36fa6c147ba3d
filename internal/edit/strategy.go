package edit

import (
	"fmt"
	"path"
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// The write strategies of git tdd write (seed 001).
const (
	Append  = "append"
	Insert  = "insert"
	Extend  = "extend"
	Replace = "replace"
)

// Merge combines a file's existing content with new content. line is where
// insert puts it (before that 1-based line; one past the end appends). The
// existing file's BOM and line endings are kept.
func Merge(name string, existing, incoming []byte, strategy string, line int) ([]byte, error) {
	switch strategy {
	case Replace:
		return incoming, nil
	case Append:
		t := Parse(existing)
		return splice(t, len(t.Lines), incoming), nil
	case Insert:
		t := Parse(existing)
		if line < 1 || line > len(t.Lines)+1 {
			return nil, fmt.Errorf("insert before line %d: the file has %d lines (give 1 to %d)", line, len(t.Lines), len(t.Lines)+1)
		}
		return splice(t, line-1, incoming), nil
	case Extend:
		return extend(name, existing, incoming)
	}
	return nil, fmt.Errorf("unknown strategy %q: use append, insert, extend or replace", strategy)
}

// splice inserts incoming's lines before line at.
func splice(t *Text, at int, incoming []byte) []byte {
	in := Parse(incoming)
	lines := in.Strings()
	t.Splice(at, at, lines)
	if at+len(lines) == len(t.Lines) && len(in.Lines) > 0 && in.Lines[len(in.Lines)-1].EOL != "" {
		t.Lines[len(t.Lines)-1].EOL = t.EOL() // appended text that ends with a newline keeps it
	}
	return t.Bytes()
}

func extend(name string, existing, incoming []byte) ([]byte, error) {
	t := Parse(existing)
	var out []string
	switch strings.ToLower(path.Ext(name)) {
	case ".py", ".pyi":
		var err error
		if out, err = extendPython(t.Strings(), SplitLines(string(incoming))); err != nil {
			return nil, err
		}
		if err := pysource.Check(out); err != nil {
			return nil, fmt.Errorf("the extended file would not parse: %w", err)
		}
	case ".go":
		src := strings.Join(t.Strings(), "\n") + "\n" // without the BOM and CRs, which go/format would not keep
		b, err := extendGo([]byte(src), incoming)
		if err != nil {
			return nil, err
		}
		out = SplitLines(string(b))
	default:
		return nil, fmt.Errorf("extend merges classes of Python files and declarations of Go files, and %s is neither; choose append, insert or replace", name)
	}
	return relined(t, out), nil
}

// relined joins lines with the existing file's BOM, usual line ending, and
// missing final newline.
func relined(t *Text, out []string) []byte {
	res := &Text{BOM: t.BOM, Lines: make([]Line, len(out))}
	eol := t.EOL()
	for i, l := range out {
		res.Lines[i] = Line{S: l, EOL: eol}
	}
	if n := len(t.Lines); n > 0 && t.Lines[n-1].EOL == "" && len(res.Lines) > 0 {
		res.Lines[len(res.Lines)-1].EOL = "" // the file ended without a newline; it still does
	}
	return res.Bytes()
}
