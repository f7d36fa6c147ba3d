// Package pysource reads the structure of Python source without running
// Python: its logical statements (brackets, strings, triple quotes, backslash
// continuations and comments understood), their indentation, what each
// defines, and its code without comments.
package pysource

import (
	"fmt"
	"strings"
)

// Stmt is one logical statement: physical lines [Start, End), the indentation
// width of its first line, what it defines, and its code.
type Stmt struct {
	Start, End int
	Indent     int
	Kind       string // "class", "def", "assign", "import", "decorator" or "other"
	Name       string // what it defines; the whole line for an import
	Code       string // without comments, each physical line trimmed, joined by spaces
}

// TabWidth is how wide a tab counts in an indentation.
const TabWidth = 4

// Width is the width of an indentation.
func Width(indent string) int {
	n := 0
	for _, c := range indent {
		if c == '\t' {
			n += TabWidth
		} else {
			n++
		}
	}
	return n
}

// IndentOf is the leading spaces and tabs of a line.
func IndentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// Statements splits source lines into logical statements; blank lines and
// comment-only lines belong to none. Unbalanced brackets or strings are errors.
func Statements(lines []string) ([]Stmt, error) {
	var out []Stmt
	err := scan(&cursor{lines: lines}, true, func(s Stmt) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Walk hands each statement of src to visit as it is read, without its code,
// and stops at the first error: Parse's statements and verdict, read from the
// text in a few allocations, without holding them (the diff gate walks every
// Python file a change touches).
func Walk(src string, visit func(Stmt)) error {
	var in indents
	return scan(&cursor{text: src, fromText: true}, false, func(s Stmt) error {
		if err := in.check(s); err != nil {
			return err
		}
		visit(s)
		return nil
	})
}

// cursor walks lines: those of a slice, or those strings.Split(text, "\n")
// would make, without making them. (A range-over-func iterator would move
// the scanner's state to the heap.)
type cursor struct {
	lines    []string
	text     string
	fromText bool
	i        int
	done     bool
}

func (c *cursor) next() (int, string, bool) {
	i := c.i
	switch {
	case c.done:
		return 0, "", false
	case c.fromText:
		line, rest, more := strings.Cut(c.text, "\n")
		c.text, c.done = rest, !more
		c.i++
		return i, line, true
	case i < len(c.lines):
		c.i++
		return i, c.lines[i], true
	}
	return 0, "", false
}

// scan is Statements over any lines, handed to emit; withCode says whether to
// keep each statement's code.
func scan(lines *cursor, withCode bool, emit func(Stmt) error) error {
	depth := 0
	quote := "" // the open string's delimiter
	var cur Stmt
	open := false
	var code []string
	for {
		i, line, ok := lines.next()
		if !ok {
			break
		}
		if !open {
			t := strings.TrimSpace(line)
			if t == "" || t[0] == '#' {
				continue
			}
			cur, open = Stmt{Start: i, Indent: Width(IndentOf(line))}, true
			classify(&cur, t)
			code = code[:0]
		}
		cont, codeEnd := false, len(line)
		for j := 0; j < len(line); j++ {
			c := line[j]
			if quote != "" {
				switch {
				case c == '\\':
					j++
				case c == quote[0] && strings.HasPrefix(line[j:], quote):
					j += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				codeEnd, j = j, len(line)
			case '"', '\'':
				quote = quoteAt(line[j:])
				j += len(quote) - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case '\\':
				cont = j == len(line)-1
			}
		}
		if withCode {
			if t := strings.TrimSpace(line[:codeEnd]); t != "" {
				code = append(code, t)
			}
		}
		if len(quote) == 1 { // a one-quote string cannot span lines
			return fmt.Errorf("line %d: a string is not closed", i+1)
		}
		if depth < 0 {
			return fmt.Errorf("line %d: a closing bracket without its opening one", i+1)
		}
		if depth == 0 && quote == "" && !cont {
			cur.End = i + 1
			if withCode {
				cur.Code = strings.Join(code, " ")
			}
			if err := emit(cur); err != nil {
				return err
			}
			open = false
		}
	}
	if open {
		return fmt.Errorf("line %d: the statement is not finished (an open bracket or string)", cur.Start+1)
	}
	return nil
}

// quoteAt is the delimiter of the string s starts: one quote, or three.
func quoteAt(s string) string {
	if len(s) >= 3 && s[1] == s[0] && s[2] == s[0] {
		return s[:3]
	}
	return s[:1]
}

func classify(s *Stmt, t string) {
	switch {
	case strings.HasPrefix(t, "@"):
		s.Kind = "decorator"
	case keywordName(t, "class") != "":
		s.Kind, s.Name = "class", keywordName(t, "class")
	case defName(t) != "":
		s.Kind, s.Name = "def", defName(t)
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from "):
		s.Kind, s.Name = "import", t
	case assignName(t) != "":
		s.Kind, s.Name = "assign", assignName(t)
	default:
		s.Kind = "other"
	}
}

// defName is the name after "def" or "async def", or "".
func defName(t string) string {
	if rest, ok := strings.CutPrefix(t, "async"); ok && len(rest) > 0 && isSpace(rest[0]) {
		t = skipSpace(rest)
	}
	return keywordName(t, "def")
}

// keywordName is the identifier after keyword and at least one space, or "".
func keywordName(t, keyword string) string {
	rest, ok := strings.CutPrefix(t, keyword)
	if !ok || len(rest) == 0 || !isSpace(rest[0]) {
		return ""
	}
	rest = skipSpace(rest)
	return rest[:identLen(rest)]
}

// assignName is the target of "name = …", "name: type = …" or "name: type".
func assignName(t string) string {
	n := identLen(t)
	if n == 0 {
		return ""
	}
	rest := skipSpace(t[n:])
	switch {
	case len(rest) >= 2 && rest[0] == '=' && rest[1] != '=':
		return t[:n]
	case len(rest) == 0 || rest[0] != ':':
		return ""
	}
	annotation, value, assigned := strings.Cut(rest[1:], "=")
	switch {
	case !assigned && annotation != "": // name: type
		return t[:n]
	case assigned && annotation != "" && len(value) > 0 && value[0] != '=':
		return t[:n]
	}
	return ""
}

// identLen is the length of the ASCII identifier s starts with.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

// isSpace is \s of a regular expression: what may separate words here.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func skipSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// Check reports the first structural error of Python source: brackets and
// strings that do not close, an indentation that dedents to no outer level.
func Check(lines []string) error {
	_, err := Parse(lines)
	return err
}

// Parse is Statements for source that passes Check.
func Parse(lines []string) ([]Stmt, error) {
	stmts, err := Statements(lines)
	if err != nil {
		return nil, err
	}
	return stmts, checkIndent(stmts)
}

// checkIndent finds a statement that dedents to no outer level.
func checkIndent(stmts []Stmt) error {
	var in indents
	for _, s := range stmts {
		if err := in.check(s); err != nil {
			return err
		}
	}
	return nil
}

// indents are the open indentation levels, statement after statement.
type indents struct{ levels []int }

func (in *indents) check(s Stmt) error {
	top := 0
	if n := len(in.levels); n > 0 {
		top = in.levels[n-1]
	}
	switch {
	case s.Indent > top:
		in.levels = append(in.levels, s.Indent)
	case s.Indent < top:
		for len(in.levels) > 0 && in.levels[len(in.levels)-1] > s.Indent {
			in.levels = in.levels[:len(in.levels)-1]
		}
		if n := len(in.levels); s.Indent != 0 && (n == 0 || in.levels[n-1] != s.Indent) {
			return fmt.Errorf("line %d: the indentation matches no outer level", s.Start+1)
		}
	}
	return nil
}

// Body is the statements of the def or class at stmts[i]: those that follow
// it, indented deeper, up to the first that is not.
func Body(stmts []Stmt, i int) []Stmt {
	j := i + 1
	for j < len(stmts) && stmts[j].Indent > stmts[i].Indent {
		j++
	}
	return stmts[i+1 : j]
}
