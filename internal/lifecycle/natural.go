package lifecycle

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The exceptions of a natural red, as pytest quotes them on the last "E" line
// of a collection error.
var (
	cannotImport = regexp.MustCompile(`^ImportError: cannot import name '([^']+)' from '([\w.]+)' \((.*)\)$`)
	noModule     = regexp.MustCompile(`^ModuleNotFoundError: No module named '([\w.]+)'$`)
	noAttribute  = regexp.MustCompile(`^AttributeError: module '([\w.]+)' has no attribute '([^']+)'$`)
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
	if g := cannotImport.FindStringSubmatch(last); g != nil {
		if g[3] == "unknown location" {
			return m.Has(g[2])
		}
		return m.inside(g[3])
	}
	if g := noModule.FindStringSubmatch(last); g != nil {
		// the package must exist for its missing submodule to be ours
		return strings.Contains(g[1], ".") && m.Has(g[1])
	}
	if g := noAttribute.FindStringSubmatch(last); g != nil {
		return m.Has(g[1])
	}
	return false
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
