package excerpt

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/git-tdd/git-tdd/internal/pysource"
	"github.com/git-tdd/git-tdd/internal/symbols"
)

// pythonItems are the top-level statements of Python source, each with its
// decorators and the statements nested in it.
func pythonItems(lines []string) ([]item, error) {
	stmts, err := pysource.Statements(lines)
	if err != nil {
		return nil, err
	}
	var items []item
	decorated := -1 // where the decorators before a definition start
	for _, s := range stmts {
		if s.Indent > 0 {
			if n := len(items); n > 0 {
				items[n-1].end = s.End
				if s.Kind == "import" && items[n-1].kind == "other" {
					items[n-1].hasImport = true
				}
			}
			continue
		}
		if n := len(items); n > 0 && continues(s.Code) {
			items[n-1].end = s.End
			continue
		}
		if s.Kind == "decorator" {
			if decorated < 0 {
				decorated = s.Start
			}
			continue
		}
		it := item{kind: s.Kind, name: s.Name, start: s.Start, sig: s.Start, end: s.End}
		if decorated >= 0 {
			it.start, decorated = decorated, -1
		}
		items = append(items, it)
	}
	return items, nil
}

// continues reports whether a statement goes on the one before it: the
// except, else and finally of a try, the elif and else of an if.
func continues(code string) bool {
	for _, k := range []string{"except", "else", "elif", "finally"} {
		if rest, ok := strings.CutPrefix(code, k); ok && (rest == "" || !isIdentByte(rest[0])) {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// goItems are the top-level declarations of Go source, each with its doc
// comment: one item a func, and one a spec of a type, var or const group.
func goItems(src string) ([]item, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, symbols.GoError(err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line - 1 }
	var items []item
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			it := item{kind: "func", name: d.Name.Name, start: line(d.Pos()), sig: line(d.Pos()), end: line(d.End()) + 1}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				it.kind, it.name = "method", symbols.ReceiverType(d.Recv.List[0].Type)+"."+d.Name.Name
			}
			if d.Doc != nil {
				it.start = line(d.Doc.Pos())
			}
			items = append(items, it)
		case *ast.GenDecl:
			start := line(d.Pos())
			if d.Doc != nil {
				start = line(d.Doc.Pos())
			}
			if d.Tok == token.IMPORT {
				items = append(items, item{kind: "import", start: start, sig: line(d.Pos()), end: line(d.End()) + 1})
				continue
			}
			for _, spec := range d.Specs {
				it := item{kind: d.Tok.String(), start: line(spec.Pos()), sig: line(spec.Pos()), end: line(spec.End()) + 1}
				if len(d.Specs) == 1 {
					it.start, it.end = start, line(d.End())+1
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					it.name = s.Name.Name
				case *ast.ValueSpec:
					it.name = s.Names[0].Name
				}
				items = append(items, it)
			}
		}
	}
	return items, nil
}
