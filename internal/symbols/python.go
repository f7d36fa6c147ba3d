package symbols

import (
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// parsePython finds the def, async def and class statements at module level
// (under if and try too) and inside classes; what a function defines inside
// itself is the function's own business.
func parsePython(src []byte) (*Source, error) {
	stmts, err := pysource.Parse(strings.Split(string(src), "\n"))
	if err != nil {
		return nil, err
	}
	type scope struct {
		indent int
		name   string // qualified
		class  bool
	}
	var stack []scope
	inFunction := 0 // how many scopes on the stack are functions
	var defs []Def
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
	return &Source{Defs: defs, body: func(d Def) Body { return pythonBody(stmts, d) }}, nil
}

// pythonBody is the definition's statement without its name, then each
// statement of its body: comments and line breaks inside brackets aside.
func pythonBody(stmts []pysource.Stmt, d Def) Body {
	head := stmts[d.at]
	short := d.Name[strings.LastIndexByte(d.Name, '.')+1:]
	b := Body{hashLine(blankName(head.Code, short))}
	for _, s := range pysource.Body(stmts, d.at) {
		b = append(b, hashLine(s.Code))
	}
	return b
}
