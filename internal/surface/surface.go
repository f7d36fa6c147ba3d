// Package surface is the frozen test surface of DESIGN §5: the files that
// decide what the tests check (the tests, their data, the test configuration),
// how two versions of it differ, and which files git ignores but a test runner
// would still load.
package surface

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/pytestconfig"
)

// Rules say which paths are frozen.
type Rules struct {
	testPaths, freeze []string // [test] test_paths and freeze: frozen whole
}

// New returns the rules of a configuration's test_paths and freeze globs.
func New(testPaths, freeze []string) Rules {
	return Rules{testPaths: testPaths, freeze: freeze}
}

// Frozen reports whether path is part of the frozen surface: a test path, a
// freeze glob, a conftest.py or pytest configuration file at any depth, a Go
// test file or anything under a testdata directory.
func (r Rules) Frozen(p string) bool {
	base := path.Base(p)
	switch {
	case r.whole(p), base == "conftest.py", strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/"):
		return true
	}
	for _, n := range pytestconfig.Names {
		if base == n {
			return true
		}
	}
	return false
}

// whole reports whether any change to the file counts. For a shared
// configuration file (pyproject.toml, setup.cfg, tox.ini) only the section
// pytest reads counts, so that adding a dependency is not a change of the tests.
func (r Rules) whole(p string) bool {
	return pathglob.Any(r.testPaths, p) || pathglob.Any(r.freeze, p)
}

// Change is one difference in the frozen surface.
type Change struct {
	Kind string // Added, Changed, Deleted, Ignored, or "" for a symlink (the note says what)
	Path string
	Note string // what part changed, when not the whole file
}

// The kinds of change.
const (
	Added   = "added"
	Changed = "changed"
	Deleted = "deleted"
	Ignored = "ignored by git, but the test runner would load it"
)

func (c Change) String() string {
	if c.Kind == "" {
		return fmt.Sprintf("%s (%s)", c.Path, c.Note)
	}
	if c.Note != "" {
		return fmt.Sprintf("%s: %s (%s)", c.Kind, c.Path, c.Note)
	}
	return c.Kind + ": " + c.Path
}

// Entry is a path whose blob differs between two trees: Old or New is "" where
// the path is absent.
type Entry struct {
	Path     string
	Old, New string
}

// Reader returns a blob's content by id.
type Reader func(oid string) ([]byte, error)

// Diff lists the changes of the frozen surface among entries; read is asked
// only for the blobs of shared configuration files.
func (r Rules) Diff(entries []Entry, read Reader) ([]Change, error) {
	var out []Change
	for _, e := range entries {
		if !r.Frozen(e.Path) {
			continue
		}
		kind := Changed
		switch {
		case e.Old == "":
			kind = Added
		case e.New == "":
			kind = Deleted
		}
		if r.whole(e.Path) || !shared(e.Path) {
			out = append(out, Change{Kind: kind, Path: e.Path})
			continue
		}
		old, err := section(e.Path, e.Old, read)
		if err != nil {
			return nil, err
		}
		next, err := section(e.Path, e.New, read)
		if err != nil {
			return nil, err
		}
		if old != next {
			out = append(out, Change{Kind: kind, Path: e.Path, Note: "its pytest section"})
		}
	}
	Sort(out)
	return out, nil
}

// shared are the configuration files that hold more than pytest's settings.
func shared(p string) bool {
	switch path.Base(p) {
	case "pyproject.toml", "setup.cfg", "tox.ini", ".pytest.ini":
		return true
	}
	return false
}

// section is the pytest section of a blob, "" when it has none or is absent.
func section(p, oid string, read Reader) (string, error) {
	if oid == "" {
		return "", nil
	}
	data, err := read(oid)
	if err != nil {
		return "", err
	}
	s, ok := pytestconfig.Section(path.Base(p), data)
	if !ok {
		return "", nil
	}
	return "\x00" + s, nil // a present but empty section differs from none
}

// Sort orders changes by path.
func Sort(cs []Change) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
}

// Loaded reports whether a test runner loads the file without anything
// importing it: a conftest.py or pytest configuration file, a Python test
// module, a Go file (go test compiles every one of its package), or a file the
// configuration freezes.
func (r Rules) Loaded(p string) bool {
	base := path.Base(p)
	switch {
	case base == "conftest.py", strings.HasSuffix(base, ".go"):
		return true
	case strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || pathglob.Any(r.testPaths, p)):
		return true
	case pathglob.Any(r.freeze, p):
		return true
	}
	for _, n := range pytestconfig.Names {
		if base == n {
			return true
		}
	}
	return false
}

// skipped are the directories neither pytest (its default norecursedirs, and
// virtual environments) nor go test (testdata, "_" and "." prefixes) looks into.
func skipped(dir string, name string) bool {
	switch {
	case strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"), strings.HasSuffix(name, ".egg"),
		name == "build", name == "dist", name == "CVS", name == "node_modules", name == "venv", name == "{arch}":
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// IgnoredLoaded finds, among the ignored entries git lists for the worktree
// root (files, and directories ending in "/"), the files a test runner would
// load: they are in no commit, so no proof can rest on a run that loads them.
func (r Rules) IgnoredLoaded(root string, ignored []string) []Change {
	var out []Change
	for _, e := range ignored {
		dir, isDir := strings.CutSuffix(e, "/")
		if !isDir {
			if r.Loaded(e) && !cache(e) {
				out = append(out, Change{Kind: Ignored, Path: e})
			}
			continue
		}
		abs := filepath.Join(root, filepath.FromSlash(dir))
		if skipped(abs, path.Base(dir)) {
			continue
		}
		filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if p != abs && skipped(p, d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && r.Loaded(rel) {
				out = append(out, Change{Kind: Ignored, Path: rel})
			}
			return nil
		})
	}
	Sort(out)
	return out
}

// cache reports whether a path is a cache a test run writes.
func cache(p string) bool {
	return strings.Contains("/"+p, "/__pycache__/") || strings.Contains("/"+p, "/.pytest_cache/") || strings.HasSuffix(p, ".pyc")
}

// Hazard is a file the branch adds or changes that lets code run under the
// tests that no reviewer reads as source: compiled code, an import hook, a
// package that stands in for the test runner itself, a nested repository.
type Hazard struct {
	Path string
	Mode uint32 // its mode in the tree: 0o160000 for a nested repository
}

// runnerPackages are what pytest is made of: a module of these names in an
// import root would run instead of pytest, its plugin manager or its support.
var runnerPackages = map[string]bool{"pytest": true, "_pytest": true, "pluggy": true, "py": true, "iniconfig": true}

// Hazards lists why each path would let unreviewed code run: the note of a
// Change with no kind. roots are the import roots inside the repository ("" is
// its top level, then src and the [test] env PYTHONPATH entries).
func Hazards(files []Hazard, roots []string) []Change {
	var out []Change
	for _, f := range files {
		if why := hazard(f, roots); why != "" {
			out = append(out, Change{Path: f.Path, Note: why})
		}
	}
	Sort(out)
	return out
}

func hazard(f Hazard, roots []string) string {
	p := f.Path
	base := path.Base(p)
	ext := path.Ext(base)
	switch {
	case f.Mode == 0o160000:
		return "a nested repository: its files are in no commit of this one"
	case strings.Contains("/"+p+"/", "/__pycache__/") || ext == ".pyc" || ext == ".pyo":
		return "compiled Python, which runs instead of the source a reviewer reads"
	case ext == ".so" || ext == ".pyd" || ext == ".dylib":
		return "a native library, which no reviewer can read"
	case ext == ".pth" || base == "sitecustomize.py" || base == "usercustomize.py":
		return "an import hook, run when Python starts"
	case strings.Contains("/"+p, ".dist-info/") || strings.Contains("/"+p, ".egg-info/") || ext == ".egg-link":
		return "package metadata, whose entry points pytest loads as plugins"
	}
	for _, r := range roots {
		rel := p
		if r != "" {
			var ok bool
			if rel, ok = strings.CutPrefix(p, r+"/"); !ok {
				continue
			}
		}
		top, _, _ := strings.Cut(rel, "/")
		if runnerPackages[strings.TrimSuffix(top, ".py")] {
			return "a module named like the test runner's own " + strings.TrimSuffix(top, ".py") + ", which would run in its place"
		}
	}
	return ""
}
