package edit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// pyStmt is one logical Python statement: physical lines [start, end), the
// indentation of its first line, and what it defines, if anything.
type pyStmt struct {
	start, end int
	indent     int
	kind       string // "class", "def", "assign", "import", "decorator", "other"
	name       string
}

var (
	pyDef    = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z_]\w*)`)
	pyClass  = regexp.MustCompile(`^class\s+([A-Za-z_]\w*)`)
	pyAssign = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]`)
	pyAnnot  = regexp.MustCompile(`^([A-Za-z_]\w*)\s*:\s*[^=]+$`)
)

// pyStatements splits source into logical statements, aware of brackets,
// strings (triple-quoted ones spanning lines) and backslash continuations.
func pyStatements(lines []string) ([]pyStmt, error) {
	var out []pyStmt
	depth := 0
	quote := "" // the open string's delimiter
	var cur *pyStmt
	for i, line := range lines {
		if cur == nil {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cur = &pyStmt{start: i, indent: width(indentOf(line))}
			classify(cur, t)
		}
		cont := false
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
				j = len(line)
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
		if len(quote) == 1 { // a one-quote string cannot span lines
			return nil, fmt.Errorf("line %d: a string is not closed", i+1)
		}
		if depth < 0 {
			return nil, fmt.Errorf("line %d: a closing bracket without its opening one", i+1)
		}
		if depth == 0 && quote == "" && !cont {
			cur.end = i + 1
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the statement is not finished (an open bracket or string)", cur.start+1)
	}
	return out, nil
}

func classify(s *pyStmt, t string) {
	switch {
	case strings.HasPrefix(t, "@"):
		s.kind = "decorator"
	case pyClass.MatchString(t):
		s.kind, s.name = "class", pyClass.FindStringSubmatch(t)[1]
	case pyDef.MatchString(t):
		s.kind, s.name = "def", pyDef.FindStringSubmatch(t)[1]
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from "):
		s.kind, s.name = "import", t
	case pyAssign.MatchString(t):
		s.kind, s.name = "assign", pyAssign.FindStringSubmatch(t)[1]
	case pyAnnot.MatchString(t):
		s.kind, s.name = "assign", pyAnnot.FindStringSubmatch(t)[1]
	default:
		s.kind = "other"
	}
}

// pyItem is a definition with its decorators: lines [start, end).
type pyItem struct {
	kind, name string
	start, end int
	indent     int
}

// pyItems groups the statements at one indentation inside [from, to) into items;
// the lines of a def or class body belong to it.
func pyItems(stmts []pyStmt, from, to, indent int) []pyItem {
	var items []pyItem
	decorated := -1
	for _, s := range stmts {
		if s.start < from || s.start >= to || s.indent != indent {
			continue
		}
		if s.kind == "decorator" {
			if decorated < 0 {
				decorated = s.start
			}
			continue
		}
		it := pyItem{kind: s.kind, name: s.name, start: s.start, end: s.end, indent: indent}
		if decorated >= 0 {
			it.start, decorated = decorated, -1
		}
		items = append(items, it)
	}
	// a def or class runs until the next item at its indentation, or the end
	for i := range items {
		next := to
		if i+1 < len(items) {
			next = items[i+1].start
		}
		if items[i].kind == "def" || items[i].kind == "class" {
			items[i].end = next
		}
	}
	return items
}

// extendPython merges new into existing: the members (methods, attributes, inner
// classes) a class of the same name lacks are added at the end of its body,
// re-indented; classes, functions and imports the module lacks are added too.
// What existing has is kept as it is.
func extendPython(existing, incoming []string) ([]string, error) {
	es, err := pyStatements(existing)
	if err != nil {
		return nil, fmt.Errorf("the existing file: %w", err)
	}
	is, err := pyStatements(incoming)
	if err != nil {
		return nil, fmt.Errorf("the new content: %w", err)
	}
	eTop := pyItems(es, 0, len(existing), 0)
	iTop := pyItems(is, 0, len(incoming), 0)
	var out []string
	var appendAtEnd [][]string
	var imports []string
	added := 0
	// Work from the bottom of the file up, so that insertions keep earlier line numbers.
	type insertion struct {
		at    int
		lines []string
	}
	var inserts []insertion
	for _, in := range iTop {
		ex := findItem(eTop, in.kind, in.name)
		switch {
		case in.kind == "import":
			if !containsTrimmed(existing, incoming[in.start:in.end]) {
				imports = append(imports, incoming[in.start:in.end]...)
				added++
			}
		case ex == nil && (in.kind == "class" || in.kind == "def" || in.kind == "assign"):
			appendAtEnd = append(appendAtEnd, trimBlankEnd(incoming[in.start:in.end]))
			added++
		case ex != nil && in.kind == "class":
			members, n, err := missingMembers(es, is, existing, incoming, *ex, in)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				inserts = append(inserts, insertion{at: bodyEnd(existing, es, *ex), lines: members})
				added += n
			}
		}
	}
	if added == 0 {
		return nil, fmt.Errorf("extend found nothing to add: every class member, function and import of the new content is already there")
	}
	if len(imports) > 0 {
		at := 0
		for _, it := range eTop {
			if it.kind == "import" {
				at = it.end
			}
		}
		inserts = append(inserts, insertion{at: at, lines: imports})
	}
	// One pass over the file, so that many insertions stay linear.
	sort.SliceStable(inserts, func(i, j int) bool { return inserts[i].at < inserts[j].at })
	out = make([]string, 0, len(existing))
	next := 0
	for _, in := range inserts {
		out = append(out, existing[next:in.at]...)
		out = append(out, in.lines...)
		next = in.at
	}
	out = append(out, existing[next:]...)
	for _, block := range appendAtEnd {
		out = trimBlankEnd(out)
		out = append(append(out, "", ""), block...)
	}
	return out, nil
}

// missingMembers renders the members of the incoming class that the existing
// class lacks, at the existing class's member indentation.
func missingMembers(es, is []pyStmt, existing, incoming []string, ex, in pyItem) ([]string, int, error) {
	eIndent := memberIndent(es, ex)
	iIndent := memberIndent(is, in)
	if iIndent < 0 {
		return nil, 0, nil
	}
	if eIndent < 0 {
		eIndent = ex.indent + 4
	}
	eMembers := pyItems(es, ex.start+1, ex.end, eIndent)
	unit := indentUnit(existing[ex.start:ex.end])
	var out []string
	n := 0
	for _, m := range pyItems(is, in.start+1, in.end, iIndent) {
		if m.kind == "other" || findItem(eMembers, m.kind, m.name) != nil || (m.kind == "assign" && findItem(eMembers, "def", m.name) != nil) {
			continue
		}
		out = append(out, "")
		for _, l := range trimBlankEnd(incoming[m.start:m.end]) {
			out = append(out, reindentLine(l, iIndent, eIndent, unit))
		}
		n++
	}
	return out, n, nil
}

// memberIndent is the indentation of a class's first statement, or -1.
func memberIndent(stmts []pyStmt, c pyItem) int {
	for _, s := range stmts {
		if s.start > c.start && s.start < c.end && s.indent > c.indent {
			return s.indent
		}
	}
	return -1
}

func reindentLine(l string, from, to int, unit string) string {
	if trimRight(l) == "" {
		return ""
	}
	w := width(indentOf(l)) - from + to
	return render(max(w, 0), unit) + strings.TrimLeft(l, " \t")
}

// bodyEnd is the line after a class's body: its last statement and the
// comments indented under it, but not the module's comments that follow at the
// class's own indentation.
func bodyEnd(lines []string, stmts []pyStmt, c pyItem) int {
	end := c.start + 1
	for _, s := range stmts {
		if s.start >= c.start && s.start < c.end {
			end = max(end, s.end)
		}
	}
	for end < c.end {
		t := trimRight(lines[end])
		if t != "" && !(strings.HasPrefix(strings.TrimSpace(t), "#") && width(indentOf(t)) > c.indent) {
			break
		}
		end++
	}
	return lastCode(lines, c.start, end)
}

// lastCode is the line after the last non-blank line of [start, end).
func lastCode(lines []string, start, end int) int {
	for i := end - 1; i >= start; i-- {
		if trimRight(lines[i]) != "" {
			return i + 1
		}
	}
	return end
}

func findItem(items []pyItem, kind, name string) *pyItem {
	for i := range items {
		if items[i].kind == kind && items[i].name == name {
			return &items[i]
		}
	}
	return nil
}

func containsTrimmed(lines, want []string) bool {
	for _, w := range want {
		found := false
		for _, l := range lines {
			if strings.TrimSpace(l) == strings.TrimSpace(w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && trimRight(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// CheckPython reports the first structural error of Python source (brackets and
// strings that do not close, an indentation that dedents to nowhere).
func CheckPython(lines []string) error {
	stmts, err := pyStatements(lines)
	if err != nil {
		return err
	}
	levels := []int{0}
	for _, s := range stmts {
		top := levels[len(levels)-1]
		switch {
		case s.indent > top:
			levels = append(levels, s.indent)
		case s.indent < top:
			for len(levels) > 1 && levels[len(levels)-1] > s.indent {
				levels = levels[:len(levels)-1]
			}
			if levels[len(levels)-1] != s.indent {
				return fmt.Errorf("line %d: the indentation matches no outer level", s.start+1)
			}
		}
	}
	return nil
}
