package edit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// pyItem is a definition with its decorators: lines [start, end).
type pyItem struct {
	kind, name string
	start, end int
	indent     int
}

// pyItems groups the statements at one indentation inside [from, to) into items;
// the lines of a def or class body belong to it.
func pyItems(stmts []pysource.Stmt, from, to, indent int) []pyItem {
	var items []pyItem
	decorated := -1
	for _, s := range stmts {
		if s.Start < from || s.Start >= to || s.Indent != indent {
			continue
		}
		if s.Kind == "decorator" {
			if decorated < 0 {
				decorated = s.Start
			}
			continue
		}
		it := pyItem{kind: s.Kind, name: s.Name, start: s.Start, end: s.End, indent: indent}
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
	es, err := pysource.Statements(existing)
	if err != nil {
		return nil, fmt.Errorf("the existing file: %w", err)
	}
	is, err := pysource.Statements(incoming)
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
func missingMembers(es, is []pysource.Stmt, existing, incoming []string, ex, in pyItem) ([]string, int, error) {
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
func memberIndent(stmts []pysource.Stmt, c pyItem) int {
	for _, s := range stmts {
		if s.Start > c.start && s.Start < c.end && s.Indent > c.indent {
			return s.Indent
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
func bodyEnd(lines []string, stmts []pysource.Stmt, c pyItem) int {
	end := c.start + 1
	for _, s := range stmts {
		if s.Start >= c.start && s.Start < c.end {
			end = max(end, s.End)
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
