package excerpt

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// Imported are the repository's files that a file imports, in the order met:
// for Python, each module an import names (relative ones from the file's
// package), and through every package's __init__.py and every star import,
// what those re-export; for Go, the file's own package and each package of
// the module it imports. fsys is the repository; roots are Python's import
// roots in it ("." and "src", say); nothing outside fsys is looked at.
func Imported(fsys fs.FS, roots []string, file, content string) []string {
	if strings.HasSuffix(file, ".go") {
		return goImported(fsys, file, content)
	}
	if !strings.HasSuffix(file, ".py") {
		return nil
	}
	r := &pyResolver{fsys: fsys, roots: roots, seen: map[string]bool{file: true}}
	r.follow(file, content, true)
	return r.out
}

type pyResolver struct {
	fsys  fs.FS
	roots []string
	seen  map[string]bool
	out   []string
}

// follow adds what the file's imports name. Of a file an import reached,
// only what it re-exports is followed: every import of an __init__.py, the
// star imports of a module.
func (r *pyResolver) follow(file, content string, all bool) {
	stmts, err := pysource.Statements(strings.Split(content, "\n"))
	if err != nil {
		return
	}
	isInit := path.Base(file) == "__init__.py"
	for _, s := range stmts {
		if s.Kind != "import" {
			continue
		}
		for _, im := range parseImport(s.Code) {
			star := slices.Contains(im.names, "*")
			if !all && !isInit && !star {
				continue
			}
			for _, target := range r.resolve(file, im) {
				if r.seen[target] {
					continue
				}
				r.seen[target] = true
				r.out = append(r.out, target)
				if b, err := fs.ReadFile(r.fsys, target); err == nil {
					r.follow(target, string(b), false)
				}
			}
		}
	}
}

// pyImport is one module an import statement names: "a.b", or "..a" for a
// relative one, and the names taken from it (nil for "import a.b").
type pyImport struct {
	module string
	names  []string
}

// parseImport reads "import a, b.c as d" and "from .x import (y, z as w)".
func parseImport(code string) []pyImport {
	if rest, ok := strings.CutPrefix(code, "from "); ok {
		mod, names, ok := strings.Cut(rest, " import ")
		if !ok {
			return nil
		}
		names = strings.Trim(strings.TrimSpace(names), "()")
		im := pyImport{module: strings.TrimSpace(mod)}
		for _, n := range strings.Split(names, ",") {
			n, _, _ = strings.Cut(strings.TrimSpace(n), " as ")
			if n = strings.TrimSpace(n); n != "" {
				im.names = append(im.names, n)
			}
		}
		return []pyImport{im}
	}
	var out []pyImport
	for _, m := range strings.Split(strings.TrimPrefix(code, "import "), ",") {
		m, _, _ = strings.Cut(strings.TrimSpace(m), " as ")
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, pyImport{module: m})
		}
	}
	return out
}

// resolve is the files of the repository an import names: the module (or
// the nearest package of it that is ours) and each name taken from a
// package that is a module of it.
func (r *pyResolver) resolve(file string, im pyImport) []string {
	var bases []string // directories the dotted name is looked up in
	mod := im.module
	if strings.HasPrefix(mod, ".") {
		dir := path.Dir(file)
		level := len(mod) - len(strings.TrimLeft(mod, "."))
		for i := 1; i < level; i++ {
			dir = path.Dir(dir)
		}
		bases, mod = []string{dir}, mod[level:]
	} else {
		bases = r.roots
	}
	var out []string
	for _, base := range bases {
		var parts []string
		if mod != "" {
			parts = strings.Split(mod, ".")
		}
		pkg := path.Join(append([]string{base}, parts...)...)
		f := r.module(pkg)
		for n := len(parts) - 1; f == "" && n > 0; n-- {
			f = r.module(path.Join(append([]string{base}, parts[:n]...)...))
		}
		if f != "" {
			out = append(out, f)
		}
		if f == "" && mod != "" {
			continue
		}
		for _, name := range im.names {
			if name != "*" {
				if sub := r.module(path.Join(pkg, name)); sub != "" {
					out = append(out, sub)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// module is p.py or p/__init__.py when either is a file of fsys, else "".
func (r *pyResolver) module(p string) string {
	for _, c := range []string{p + ".py", path.Join(p, "__init__.py")} {
		c = path.Clean(c)
		if !fs.ValidPath(c) {
			continue
		}
		if fi, err := fs.Stat(r.fsys, c); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// goImported are the non-test .go files of the file's own package and of
// each package of its module that it imports.
func goImported(fsys fs.FS, file, content string) []string {
	out := goFiles(fsys, path.Dir(file), file)
	modDir, modPath := goModule(fsys, path.Dir(file))
	if modPath == "" {
		return out
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", content, parser.ImportsOnly)
	if err != nil {
		return out
	}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		rest, ok := strings.CutPrefix(p, modPath)
		if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
			continue
		}
		for _, g := range goFiles(fsys, path.Join(modDir, rest), file) {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// goFiles are the non-test .go files of a directory, but the file itself.
func goFiles(fsys fs.FS, dir, self string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && path.Join(dir, n) != self {
			out = append(out, path.Join(dir, n))
		}
	}
	return out
}

var modLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?\s*$`)
})

// goModule is the directory of the go.mod nearest above dir, and the module
// path it declares.
func goModule(fsys fs.FS, dir string) (string, string) {
	for {
		if b, err := fs.ReadFile(fsys, path.Join(dir, "go.mod")); err == nil {
			if m := modLine().FindSubmatch(b); m != nil {
				return dir, string(m[1])
			}
			return "", ""
		}
		if dir == "." || dir == "/" || dir == "" {
			return "", ""
		}
		dir = path.Dir(dir)
	}
}

// Ref is a place a test's output points at: a path as written, and a line.
type Ref struct {
	Path string
	Line int
}

// failureRefs match a Python traceback's `File "x.py", line 12`, pytest's
// `x.py:12: in f` and Go's `x.go:12:` (or `x.go:12:3:`).
var failureRefs = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`File "([^"\n]+\.py)", line (\d+)`),
		regexp.MustCompile(`(?m)(?:^|[\s(])([^\s:"'()]+\.py):(\d+)\b`),
		regexp.MustCompile(`(?m)(?:^|[\s(])([^\s:"'()]+\.go):(\d+):`),
	}
})

// Named are the places an output points at, each once, in the order met.
func Named(output string) []Ref {
	var out []Ref
	for _, re := range failureRefs() {
		for _, m := range re.FindAllStringSubmatch(output, -1) {
			n, err := strconv.Atoi(m[2])
			if err != nil {
				continue
			}
			if r := (Ref{m[1], n}); !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// Identifiers are the names a text uses: what the tests, the failure and the
// design name, to pick the definitions of a large file the task needs.
func Identifiers(texts ...string) map[string]bool {
	out := map[string]bool{}
	for _, t := range texts {
		for _, id := range ident().FindAllString(t, -1) {
			out[id] = true
		}
	}
	return out
}

var ident = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
})

// CodeIdentifiers are the names a markdown document uses in its code: its
// fenced blocks and `inline code`, not its prose, where every word would be
// taken for a name.
func CodeIdentifiers(doc string) map[string]bool {
	var code []string
	for i, part := range strings.Split(doc, "```") {
		if i%2 == 1 {
			code = append(code, part)
			continue
		}
		for _, m := range inlineCode().FindAllStringSubmatch(part, -1) {
			code = append(code, m[1])
		}
	}
	return Identifiers(code...)
}

var inlineCode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("`([^`\n]+)`")
})

// GoTestFiles are the test files of the module in fsys that declare the Go
// test id names ("example.com/m/calc.TestMul", a subtest "….TestMul/case"):
// the _test.go files of the package's directory with func TestMul.
func GoTestFiles(fsys fs.FS, id string) []string {
	modDir, modPath := goModule(fsys, ".")
	if modPath == "" {
		return nil
	}
	for i := 0; i < len(id); i++ {
		if id[i] != '.' {
			continue
		}
		pkg, name := id[:i], id[i+1:]
		name, _, _ = strings.Cut(name, "/") // a subtest's name
		rest, ok := strings.CutPrefix(pkg, modPath)
		if !ok || rest != "" && !strings.HasPrefix(rest, "/") || !testFunc().MatchString(name) {
			continue
		}
		return declaring(fsys, path.Join(modDir, rest), name)
	}
	return nil
}

var testFunc = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(Test|Fuzz|Example|Benchmark)\w*$`)
})

// declaring are the _test.go files of dir that declare func name.
func declaring(fsys fs.FS, dir, name string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(`)
	var out []string
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		if b, err := fs.ReadFile(fsys, p); err == nil && decl.Match(b) {
			out = append(out, p)
		}
	}
	return out
}
