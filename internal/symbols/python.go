package symbols

import (
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// parsePython finds the def, async def and class statements at module level
// (under if and try too) and inside classes; what a function defines inside
// itself is the function's own business. It keeps where each one's lines
// are, not the statements: a large file's outline would cost more memory
// than its text.
func parsePython(src []byte) (*Source, error) {
	p := &pythonSource{text: string(src)}
	n := strings.Count(p.text, "def ") + strings.Count(p.text, "class ") // at least as many as there are
	defs := make([]Def, 0, n)
	p.spans = make([][2]int, 0, n)
	type scope struct {
		indent int
		name   string // qualified
		class  bool
		def    int // its index in defs, -1 when not listed
	}
	var room [8]scope
	stack := room[:0]
	inFunction := 0 // how many scopes on the stack are functions
	lastEnd := 0    // where the statement before ended
	pop := func() {
		top := stack[len(stack)-1]
		if !top.class {
			inFunction--
		}
		if top.def >= 0 {
			p.spans[top.def][1] = lastEnd
		}
		stack = stack[:len(stack)-1]
	}
	err := pysource.Walk(p.text, func(s pysource.Stmt) {
		for len(stack) > 0 && stack[len(stack)-1].indent >= s.Indent {
			pop()
		}
		lastEnd = s.End
		if s.Kind != "def" && s.Kind != "class" {
			return
		}
		name, parent := s.Name, ""
		if len(stack) > 0 {
			parent = stack[len(stack)-1].name
			name = parent + "." + s.Name
		}
		listed := -1
		if inFunction == 0 {
			listed = len(defs)
			defs = append(defs, Def{Kind: s.Kind, Name: name, Parent: parent, at: listed})
			p.spans = append(p.spans, [2]int{s.Start, s.End})
		}
		stack = append(stack, scope{s.Indent, name, s.Kind == "class", listed})
		if s.Kind == "def" {
			inFunction++
		}
	})
	if err != nil {
		return nil, err
	}
	for len(stack) > 0 {
		pop()
	}
	return &Source{Defs: defs, py: p}, nil
}

// pythonSource is what the bodies of a Python file's definitions are read
// from: its text, and the lines each definition spans.
type pythonSource struct {
	text  string
	spans [][2]int // [first line, end line) of each definition, by Def.at
	lines []string // split when a body is first needed
}

// body is the definition's statement without its name, then each statement
// of its body: comments and line breaks inside brackets aside. Only the
// definition's own lines are read again, with their code: a statement starts
// where no string or bracket is open.
func (p *pythonSource) body(d Def) Body {
	if p.lines == nil {
		p.lines = strings.Split(p.text, "\n")
	}
	span := p.spans[d.at]
	stmts, _ := pysource.Statements(p.lines[span[0]:span[1]])
	short := d.Name[strings.LastIndexByte(d.Name, '.')+1:]
	b := make(Body, len(stmts))
	for i, s := range stmts {
		code := s.Code
		if i == 0 {
			code = blankName(code, short)
		}
		b[i] = hashLine(code)
	}
	return b
}
