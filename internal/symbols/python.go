package symbols

import (
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// parsePython finds the def, async def and class statements at module level
// (under if and try too) and inside classes; what a function defines inside
// itself is the function's own business.
func parsePython(src []byte) (*Source, error) {
	text := string(src)
	stmts, err := pysource.Outline(text)
	if err != nil {
		return nil, err
	}
	type scope struct {
		indent int
		name   string // qualified
		class  bool
	}
	var room [8]scope
	stack := room[:0]
	inFunction := 0 // how many scopes on the stack are functions
	n := 0
	for _, s := range stmts {
		if s.Kind == "def" || s.Kind == "class" {
			n++
		}
	}
	defs := make([]Def, 0, n)
	for i, s := range stmts {
		for len(stack) > 0 && stack[len(stack)-1].indent >= s.Indent {
			if !stack[len(stack)-1].class {
				inFunction--
			}
			stack = stack[:len(stack)-1]
		}
		if s.Kind != "def" && s.Kind != "class" {
			continue
		}
		name, parent := s.Name, ""
		if len(stack) > 0 {
			parent = stack[len(stack)-1].name
			name = parent + "." + s.Name
		}
		if inFunction == 0 {
			defs = append(defs, Def{Kind: s.Kind, Name: name, Parent: parent, at: i})
		}
		stack = append(stack, scope{s.Indent, name, s.Kind == "class"})
		if s.Kind == "def" {
			inFunction++
		}
	}
	return &Source{Defs: defs, py: &pythonSource{text: text}}, nil
}

// pythonSource is what the bodies of a Python file's definitions are read
// from: its statements with their code, read when a body is first needed.
type pythonSource struct {
	text  string
	stmts []pysource.Stmt
}

// body is the definition's statement without its name, then each statement
// of its body: comments and line breaks inside brackets aside.
func (p *pythonSource) body(d Def) Body {
	if p.stmts == nil {
		p.stmts, _ = pysource.Statements(strings.Split(p.text, "\n")) // the same statements as the outline
	}
	stmts := p.stmts
	head := stmts[d.at]
	short := d.Name[strings.LastIndexByte(d.Name, '.')+1:]
	b := Body{hashLine(blankName(head.Code, short))}
	for _, s := range pysource.Body(stmts, d.at) {
		b = append(b, hashLine(s.Code))
	}
	return b
}
