package edit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// extendGo merges new Go declarations into existing source: functions and
// methods it lacks, types it lacks, fields a struct of the same name lacks, and
// the imports they need. The result is gofmt'ed, which also proves it parses.
func extendGo(existing, incoming []byte) ([]byte, error) {
	fset := token.NewFileSet()
	ef, err := parser.ParseFile(fset, "existing.go", existing, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("the existing file does not parse: %w", err)
	}
	src := incoming
	if !bytes.Contains(incoming, []byte("package ")) {
		src = append([]byte("package "+ef.Name.Name+"\n\n"), incoming...)
	}
	nf, err := parser.ParseFile(fset, "new.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("the new content does not parse: %w", err)
	}
	have := declKeys(ef)
	var appendix []string
	type insertion struct {
		at   int
		text string
	}
	var inserts []insertion
	for _, d := range nf.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !have[funcKey(d)] {
				appendix = append(appendix, nodeText(fset, src, d, d.Doc))
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, spec := range d.Specs {
				ts := spec.(*ast.TypeSpec)
				old := findStruct(ef, ts.Name.Name)
				if old == nil {
					if !have["type "+ts.Name.Name] {
						appendix = append(appendix, "type "+nodeText(fset, src, ts, ts.Doc))
					}
					continue
				}
				if nst, ok := ts.Type.(*ast.StructType); ok {
					if fields := missingFields(fset, src, old, nst); fields != "" {
						inserts = append(inserts, insertion{fset.Position(old.Fields.Closing).Offset, fields})
					}
				}
			}
		}
	}
	if len(appendix) == 0 && len(inserts) == 0 {
		return nil, fmt.Errorf("extend found nothing to add: every declaration of the new content is already there")
	}
	out := append([]byte{}, existing...)
	sort.Slice(inserts, func(i, j int) bool { return inserts[i].at > inserts[j].at })
	for _, in := range inserts {
		out = append(out[:in.at], append([]byte(in.text), out[in.at:]...)...)
	}
	for _, a := range appendix {
		out = append(bytes.TrimRight(out, "\n"), []byte("\n\n"+a+"\n")...)
	}
	out = addImports(out, missingImports(ef, nf))
	formatted, err := format.Source(out)
	if err != nil {
		return nil, fmt.Errorf("the extended file does not parse: %w", err)
	}
	return formatted, nil
}

func declKeys(f *ast.File) map[string]bool {
	have := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			have[funcKey(d)] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					have["type "+ts.Name.Name] = true
				}
			}
		}
	}
	return have
}

// funcKey is "Name" or "Recv.Name".
func funcKey(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return "?." + d.Name.Name
	}
}

func findStruct(f *ast.File, name string) *ast.StructType {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == name {
					st, _ := ts.Type.(*ast.StructType)
					return st
				}
			}
		}
	}
	return nil
}

func missingFields(fset *token.FileSet, src []byte, old, nst *ast.StructType) string {
	have := map[string]bool{}
	for _, f := range old.Fields.List {
		for _, n := range f.Names {
			have[n.Name] = true
		}
		if len(f.Names) == 0 {
			have[exprName(f.Type)] = true
		}
	}
	var b strings.Builder
	for _, f := range nst.Fields.List {
		names := []string{exprName(f.Type)}
		if len(f.Names) > 0 {
			names = nil
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
		}
		missing := false
		for _, n := range names {
			missing = missing || !have[n]
		}
		if missing {
			b.WriteString("\t" + nodeText(fset, src, f, f.Doc) + "\n")
		}
	}
	return b.String()
}

func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return exprName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func nodeText(fset *token.FileSet, src []byte, n ast.Node, doc *ast.CommentGroup) string {
	start := n.Pos()
	if doc != nil {
		start = doc.Pos()
	}
	return string(src[fset.Position(start).Offset:fset.Position(n.End()).Offset])
}

func missingImports(ef, nf *ast.File) []string {
	have := map[string]bool{}
	for _, im := range ef.Imports {
		have[im.Path.Value] = true
	}
	var out []string
	for _, im := range nf.Imports {
		if !have[im.Path.Value] {
			spec := im.Path.Value
			if im.Name != nil {
				spec = im.Name.Name + " " + spec
			}
			out = append(out, spec)
		}
	}
	return out
}

// addImports adds import specs in a declaration of their own after the package
// clause; gofmt keeps it valid.
func addImports(src []byte, specs []string) []byte {
	if len(specs) == 0 {
		return src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.PackageClauseOnly)
	if err != nil {
		return src
	}
	at := fset.Position(f.Name.End()).Offset
	decl := "\n\nimport (\n"
	for _, s := range specs {
		if _, err := strconv.Unquote(s); err == nil || strings.Contains(s, " ") {
			decl += "\t" + s + "\n"
		}
	}
	decl += ")"
	return append(src[:at], append([]byte(decl), src[at:]...)...)
}
