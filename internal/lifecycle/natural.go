package lifecycle

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/jstitle"
	"github.com/git-tdd/git-tdd/internal/runner"
)

// The exceptions of a natural red, as pytest quotes them on the last "E" line
// of a collection error.
var (
	cannotImport = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ImportError: cannot import name '([^']+)' from '([\w.]+)' \((.*)\)$`)
	})
	noModule = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ModuleNotFoundError: No module named '([\w.]+)'$`)
	})
	noAttribute = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^AttributeError: module '([\w.]+)' has no attribute '([^']+)'$`)
	})
)

// Modules says whether a Python module's top-level package lives in the
// repository: a directory or a .py file under one of its import roots.
type Modules struct {
	Roots []string // absolute: the worktree, its src/, and [test] env PYTHONPATH entries
}

// ModulesOf are the import roots of a worktree whose sealed environment sets
// pythonPath ("" when it does not).
func ModulesOf(dir, pythonPath string) Modules {
	roots := []string{dir, filepath.Join(dir, "src")}
	for _, p := range filepath.SplitList(pythonPath) {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		roots = append(roots, filepath.Clean(p))
	}
	return Modules{Roots: roots}
}

// Has reports whether module's top-level package is in the repository.
func (m Modules) Has(module string) bool {
	top, _, _ := strings.Cut(module, ".")
	for _, r := range m.Roots {
		if fi, err := os.Stat(filepath.Join(r, top)); err == nil && fi.IsDir() {
			return true
		}
		if _, err := os.Stat(filepath.Join(r, top+".py")); err == nil {
			return true
		}
	}
	return false
}

// inside reports whether path is a file of the repository rather than of an
// environment kept in it.
func (m Modules) inside(path string) bool {
	if strings.Contains(path, string(filepath.Separator)+"site-packages"+string(filepath.Separator)) {
		return false
	}
	for _, r := range m.Roots[:1] {
		if strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// NaturalCause reports whether a collection error's traceback ends in an
// import of something the repository does not have yet: a name missing from
// one of its modules, a submodule missing from one of its packages, or an
// attribute of one of its modules used at import time. A missing third-party
// module, a syntax error or a circular import are not.
func (m Modules) NaturalCause(traceback string) bool {
	last := lastException(traceback)
	if g := cannotImport().FindStringSubmatch(last); g != nil {
		if g[3] == "unknown location" {
			return m.Has(g[2])
		}
		return m.inside(g[3])
	}
	if g := noModule().FindStringSubmatch(last); g != nil {
		// the package must exist for its missing submodule to be ours
		return strings.Contains(g[1], ".") && m.Has(g[1])
	}
	if g := noAttribute().FindStringSubmatch(last); g != nil {
		return m.Has(g[1])
	}
	return false
}

// NaturalFile reports whether a test file that did not load is the natural
// red: a Python file whose traceback ends in an import of what the
// repository does not have yet (NaturalCause), or a JavaScript file whose
// load error is a relative module that does not exist or does not export
// the name it imports (jsMissing). Node's runner does not say why a file
// failed: that is never natural.
func (m Modules) NaturalFile(t runner.Test) bool {
	if jstitle.IsSource(t.File) {
		return jsMissing().MatchString(firstLinesOf(t.Message, 5))
	}
	return m.NaturalCause(t.Message)
}

// jsMissing are the load errors of a JavaScript test file that imports what
// does not exist yet, as the runners word them: vitest and node ("Cannot find
// module './mul.js' imported from …"), jest ("Cannot find module './mul' from
// 'src/mul.test.js'"), vite's resolver ("Failed to resolve import "./mul""),
// node's ES modules ("The requested module './calc.js' does not provide an
// export named 'mul'"). Only a relative module is the repository's.
var jsMissing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Cannot find module '\.\.?/[^']*'|Failed to resolve import "\.\.?/[^"]*"|The requested module '\.\.?/[^']*' does not provide an export named`)
})

// firstLinesOf is the first n non-blank lines of s, where a runner puts the
// error (a stack and the code around it follow).
func firstLinesOf(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" && len(out) < n {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// lastException is the last "E   Error: message" line of pytest's report.
func lastException(tb string) string {
	lines := strings.Split(strings.TrimRight(tb, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if rest, ok := strings.CutPrefix(l, "E "); ok && strings.Contains(rest, ": ") {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
