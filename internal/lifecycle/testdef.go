package lifecycle

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"

	"github.com/git-tdd/git-tdd/internal/jstitle"
	"github.com/git-tdd/git-tdd/internal/pysource"
	"github.com/git-tdd/git-tdd/internal/runner"
)

// TestChanged reports whether a test counts as this branch's: its definition
// (decorators and body; for a test a class inherits, the class) is absent from
// base, the file as the branch started, or differs from it there, comments and
// blank lines aside. A test whose definition cannot be found in now is not
// this branch's: only what can be shown to be new counts.
func TestChanged(file, id string, base, now []byte) bool {
	if jstitle.IsSource(file) {
		// a JavaScript test is its title path: new when the file has it now
		// and did not have it (the file new, or no test of that path in it)
		title := jsTitle(file, id)
		return jstitle.Has(now, title) && (base == nil || !jstitle.Has(base, title))
	}
	d := definition(file, id, now)
	if d == "" {
		return false
	}
	return definition(file, id, base) != d
}

// definition is the normalised text of a test's definition in src, "" when it
// is not there.
func definition(file, id string, src []byte) string {
	if src == nil {
		return ""
	}
	switch {
	case strings.HasSuffix(file, ".go"):
		return goDefinition(id, src)
	case strings.HasSuffix(file, ".py"):
		return pyDefinition(id, string(src))
	}
	return nameDefinition(id, src)
}

// jsTitle is the reported title path in a test's id: what follows its file,
// or the whole id when the report did not name the file (node's runner).
func jsTitle(file, id string) string {
	if t, ok := strings.CutPrefix(id, file+"::"); ok {
		return t
	}
	return id
}

// nameDefinition stands in for a definition in a language git tdd does not
// parse (runner = "junit"): the test's name, when src holds it. So a test is
// the branch's when its name is new in the file; a changed body of an old
// test cannot be told from an unchanged one, and does not count.
func nameDefinition(id string, src []byte) string {
	name := runner.ShortName(id)
	if name == "" || !bytes.Contains(src, []byte(name)) {
		return ""
	}
	return name
}

func pyDefinition(id, src string) string {
	parts := strings.Split(withoutParams(id), "::")
	if len(parts) < 2 {
		return ""
	}
	name := parts[len(parts)-1]
	stmts, err := pysource.Statements(strings.Split(src, "\n"))
	if err != nil {
		return ""
	}
	classes := parts[1 : len(parts)-1]
	i := findDef(stmts, classes, "def", name)
	if i < 0 && len(classes) > 0 {
		// an inherited test: its class is what the branch wrote
		i = findDef(stmts, classes[:len(classes)-1], "class", classes[len(classes)-1])
	}
	if i < 0 {
		return ""
	}
	var b strings.Builder
	for k := i - 1; k >= 0 && stmts[k].Kind == "decorator" && stmts[k].Indent == stmts[i].Indent; k-- {
		b.WriteString(stmts[k].Code + "\n")
	}
	b.WriteString(stmts[i].Code + "\n")
	for _, s := range pysource.Body(stmts, i) {
		b.WriteString(s.Code + "\n")
	}
	return b.String()
}

func goDefinition(id string, src []byte) string {
	name := runner.ShortName(id) // pkg.TestName/sub, or pkg::TestName from a JUnit report
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return ""
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != name {
			continue
		}
		fn.Doc = nil
		var b bytes.Buffer
		if printer.Fprint(&b, fset, fn) != nil {
			return ""
		}
		// the printer keeps a blank line where a comment was
		var out strings.Builder
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.TrimSpace(l) != "" {
				out.WriteString(l + "\n")
			}
		}
		return out.String()
	}
	return ""
}
