package symbols

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// goSpan is where a Go definition's text is, and its name inside it.
type goSpan struct{ from, to, nameFrom, nameTo int }

// parseGo finds the top-level funcs, methods (named by receiver type, pointer
// or not), types, vars and consts; blank names define nothing.
func parseGo(src []byte) (*Source, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, GoError(err)
	}
	var defs []Def
	var spans []goSpan
	add := func(kind string, name *ast.Ident, from, to token.Pos, display string) {
		if name.Name == "_" {
			return
		}
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		defs = append(defs, Def{Kind: kind, Name: display, at: len(spans)})
		spans = append(spans, goSpan{off(from), off(to), off(name.Pos()), off(name.End())})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				add("func", d.Name, d.Pos(), d.End(), d.Name.Name)
			} else {
				add("method", d.Name, d.Pos(), d.End(), ReceiverType(d.Recv.List[0].Type)+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					add("type", s.Name, s.Pos(), s.End(), s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(d.Tok.String(), n, s.Pos(), s.End(), n.Name)
					}
				}
			}
		}
	}
	return &Source{Defs: defs, goes: &goSource{src, spans}}, nil
}

// goSource is what the bodies of a Go file's definitions are read from.
type goSource struct {
	src   []byte
	spans []goSpan
}

// ReceiverType is the type a method is declared on: T for T, *T, T[K] or (*T).
func ReceiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// GoError is the first error of a parse, as "line N: message".
func GoError(err error) error {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		return fmt.Errorf("line %d: %s", list[0].Pos.Line, list[0].Msg)
	}
	return err
}

// goBody is a definition's tokens, without comments or its name, in lines cut
// where Go ends a statement or opens or closes a block: how it was laid out
// does not count.
func goBody(src []byte, sp goSpan) Body {
	text := src[sp.from:sp.to]
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(text)), text, nil, 0)
	var b Body
	var line []string
	flush := func() {
		if len(line) > 0 {
			b = append(b, hashLine(strings.Join(line, " ")))
			line = line[:0]
		}
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if off := fset.Position(pos).Offset + sp.from; off == sp.nameFrom {
			continue
		}
		switch tok {
		case token.SEMICOLON:
			flush()
			continue
		case token.RBRACE, token.RPAREN, token.RBRACK:
			if n := len(line); n > 0 && line[n-1] == "," {
				line = line[:n-1] // a trailing comma is layout
			}
		}
		if tok == token.RBRACE {
			flush()
		}
		if lit == "" {
			lit = tok.String()
		}
		line = append(line, lit)
		if tok == token.LBRACE {
			flush()
		}
	}
	flush()
	return b
}
