// Package pysource reads the structure of Python source without running
// Python: its logical statements (brackets, strings, triple quotes, backslash
// continuations and comments understood), their indentation, what each
// defines, and its code without comments.
package pysource

import (
	"fmt"
	"regexp"
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

var (
	def    = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z_]\w*)`)
	class  = regexp.MustCompile(`^class\s+([A-Za-z_]\w*)`)
	assign = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]`)
	annot  = regexp.MustCompile(`^([A-Za-z_]\w*)\s*:\s*[^=]+$`)
)

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
	depth := 0
	quote := "" // the open string's delimiter
	var cur *Stmt
	var code []string
	for i, line := range lines {
		if cur == nil {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cur = &Stmt{Start: i, Indent: Width(IndentOf(line))}
			classify(cur, t)
			code = code[:0]
		}
		cont, codeEnd := false, len(line)
		for j := 0; j < len(line); j++ {
			c := line[j]
			if quote != "" {
				switch {
				case c == '\\':
					j++
				case strings.HasPrefix(line[j:], quote):
					j += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch {
			case c == '#':
				codeEnd, j = j, len(line)
			case c == '"' || c == '\'':
				q := string(c)
				if strings.HasPrefix(line[j:], q+q+q) {
					q = q + q + q
				}
				quote = q
				j += len(q) - 1
			case strings.IndexByte("([{", c) >= 0:
				depth++
			case strings.IndexByte(")]}", c) >= 0:
				depth--
			case c == '\\' && j == len(line)-1:
				cont = true
			}
		}
		if t := strings.TrimSpace(line[:codeEnd]); t != "" {
			code = append(code, t)
		}
		if len(quote) == 1 { // a one-quote string cannot span lines
			return nil, fmt.Errorf("line %d: a string is not closed", i+1)
		}
		if depth < 0 {
			return nil, fmt.Errorf("line %d: a closing bracket without its opening one", i+1)
		}
		if depth == 0 && quote == "" && !cont {
			cur.End, cur.Code = i+1, strings.Join(code, " ")
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the statement is not finished (an open bracket or string)", cur.Start+1)
	}
	return out, nil
}

func classify(s *Stmt, t string) {
	switch {
	case strings.HasPrefix(t, "@"):
		s.Kind = "decorator"
	case class.MatchString(t):
		s.Kind, s.Name = "class", class.FindStringSubmatch(t)[1]
	case def.MatchString(t):
		s.Kind, s.Name = "def", def.FindStringSubmatch(t)[1]
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from "):
		s.Kind, s.Name = "import", t
	case assign.MatchString(t):
		s.Kind, s.Name = "assign", assign.FindStringSubmatch(t)[1]
	case annot.MatchString(t):
		s.Kind, s.Name = "assign", annot.FindStringSubmatch(t)[1]
	default:
		s.Kind = "other"
	}
}

// Check reports the first structural error of Python source: brackets and
// strings that do not close, an indentation that dedents to no outer level.
func Check(lines []string) error {
	stmts, err := Statements(lines)
	if err != nil {
		return err
	}
	levels := []int{0}
	for _, s := range stmts {
		top := levels[len(levels)-1]
		switch {
		case s.Indent > top:
			levels = append(levels, s.Indent)
		case s.Indent < top:
			for len(levels) > 1 && levels[len(levels)-1] > s.Indent {
				levels = levels[:len(levels)-1]
			}
			if levels[len(levels)-1] != s.Indent {
				return fmt.Errorf("line %d: the indentation matches no outer level", s.Start+1)
			}
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
