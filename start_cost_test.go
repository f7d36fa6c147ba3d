package gittdd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// git-tdd starts twice for each test run (once by git, once as the sandbox
// helper) and git starts git-diffgate for every hook, so what their packages
// do at init is paid on every start, whatever the command: a regular
// expression compiled there costs allocations and page faults every time
// (DESIGN §9). None of our packages compiles one before main: a package-level
// regexp is a sync.OnceValue, built on first use.
func TestNoRegexpCompiledAtStart(t *testing.T) {
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, pos := range compiledAtInit(f) {
			found = append(found, fset.Position(pos).String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range found {
		t.Errorf("%s: a regular expression compiled at init; make it a sync.OnceValue(func() *regexp.Regexp {...})", at)
	}
}

// The check itself finds what runs at init and passes over what does not.
func TestCompiledAtInit(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      int
	}{
		{"a package-level regexp", "var re = regexp.MustCompile(`a`)", 1},
		{"in a group, with Compile", "var (\n\ta = 1\n\tre, _ = regexp.Compile(`a`)\n)", 1},
		{"a table of them", "var res = []*regexp.Regexp{regexp.MustCompile(`a`), regexp.MustCompile(`b`)}", 2},
		{"in a struct table", "var shapes = []struct{ re *regexp.Regexp }{{regexp.MustCompile(`a`)}}", 1},
		{"a function called at init", "var re = func() *regexp.Regexp { return regexp.MustCompile(`a`) }()", 1},
		{"in init", "func init() { re = regexp.MustCompilePOSIX(`a`) }", 1},
		{"the import renamed", "import rx \"regexp\"\nvar re = rx.MustCompile(`a`)", 1},
		{"regexp2", "import \"github.com/dlclark/regexp2/v2\"\nvar re = regexp2.MustCompile(`a`, 0)", 1},
		{"a function literal handed to a call that may run it", "var re = build(func() *regexp.Regexp { return regexp.MustCompile(`a`) })", 1},
		{"sync.OnceValue", "var re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`a`) })", 0},
		{"sync.OnceValues", "var re = sync.OnceValues(func() (*regexp.Regexp, error) { return regexp.Compile(`a`) })", 0},
		{"a func value", "var mk = func() *regexp.Regexp { return regexp.MustCompile(`a`) }", 0},
		{"in a function", "func f() bool { return regexp.MustCompile(`a`).MatchString(\"a\") }", 0},
		{"another package's MustCompile", "import \"text/template\"\nvar x = template.Must(nil, nil)\nvar y = other.MustCompile(`a`)", 0},
		{"regexp.QuoteMeta", "var q = regexp.QuoteMeta(`a.b`)", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n"
			if !strings.Contains(tt.src, "import") {
				src += "import \"regexp\"\n"
			}
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", src+tt.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(compiledAtInit(f)); got != tt.want {
				t.Errorf("found %d, want %d", got, tt.want)
			}
		})
	}
}

// compiledAtInit are the calls compiling a regular expression that a file's
// package-level variables and init functions make when the package
// initialises. A function literal runs there too, unless it is a value or
// what sync.OnceValue, OnceValues or OnceFunc wrap.
func compiledAtInit(f *ast.File) []token.Pos {
	names := map[string]bool{} // the file's names for the regexp packages
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != "regexp" && !strings.HasPrefix(path, "github.com/dlclark/regexp2") {
			continue
		}
		name := filepath.Base(path)
		if strings.HasPrefix(path, "github.com/dlclark/regexp2") {
			name = "regexp2"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	var found []token.Pos
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false // a value: it runs when called (see CallExpr)
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok {
					if names[pkg.Name] && slices.Contains([]string{"MustCompile", "Compile", "MustCompilePOSIX", "CompilePOSIX"}, sel.Sel.Name) {
						found = append(found, x.Pos())
					}
					if pkg.Name == "sync" && strings.HasPrefix(sel.Sel.Name, "Once") {
						return false // deferred to the first call
					}
				}
			}
			if lit, ok := x.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit) // called right here
			}
			for _, a := range x.Args {
				if lit, ok := a.(*ast.FuncLit); ok {
					ast.Inspect(lit.Body, visit) // the callee may call it
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				for _, s := range d.Specs {
					for _, v := range s.(*ast.ValueSpec).Values {
						ast.Inspect(v, visit)
					}
				}
			}
		}
	}
	return found
}
