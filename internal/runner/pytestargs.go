package runner

import (
	"path"
	"path/filepath"
	"strings"
)

// pytestValueOptions are pytest's options, and its common plugins', whose value
// may be the next argument: that argument is not a path to test. (pytest 7 and
// 8; plugins: xdist, cov, timeout, rerunfailures, randomly, django, hypothesis,
// repeat, html, benchmark's commonest.)
var pytestValueOptions = map[string]bool{
	"-k": true, "-m": true, "-p": true, "-c": true, "-o": true, "-W": true, "-r": true, "-n": true,
	"--config-file": true, "--override-ini": true, "--pythonwarnings": true, "--rootdir": true,
	"--confcutdir": true, "--basetemp": true, "--junitxml": true, "--junit-xml": true, "--junit-prefix": true,
	"--deselect": true, "--ignore": true, "--ignore-glob": true, "--maxfail": true, "--tb": true,
	"--durations": true, "--durations-min": true, "--verbosity": true, "--capture": true, "--color": true,
	"--code-highlight": true, "--show-capture": true, "--pastebin": true, "--import-mode": true,
	"--doctest-report": true, "--doctest-glob": true, "--assert": true, "--pdbcls": true,
	"--lfnf": true, "--last-failed-no-failures": true, "--log-level": true, "--log-format": true,
	"--log-date-format": true, "--log-cli-level": true, "--log-cli-format": true, "--log-cli-date-format": true,
	"--log-file": true, "--log-file-level": true, "--log-file-format": true, "--log-file-date-format": true,
	"--log-file-mode": true, "--log-auto-indent": true, "--log-disable": true, "--report-log": true,
	"--numprocesses": true, "--maxprocesses": true, "--dist": true, "--tx": true, "--rsyncdir": true,
	"--rsyncignore": true, "--max-worker-restart": true, "--cov-report": true, "--cov-config": true,
	"--cov-fail-under": true, "--cov-context": true, "--timeout": true, "--timeout-method": true,
	"--timeout_method": true, "--reruns": true, "--reruns-delay": true, "--only-rerun": true,
	"--rerun-except": true, "--randomly-seed": true, "--ds": true, "--dc": true, "--hypothesis-seed": true,
	"--hypothesis-profile": true, "--hypothesis-verbosity": true, "--count": true, "--repeat-scope": true,
	"--html": true, "--css": true, "--benchmark-sort": true, "--benchmark-group-by": true,
	"--benchmark-columns": true, "--benchmark-json": true, "--benchmark-save": true,
}

// pytestOptionalValue take the next argument as their value only when it does
// not start with "-" (argparse's nargs="?"): "--cov src" measures src.
var pytestOptionalValue = map[string]bool{"--cov": true, "--debug": true, "--cache-show": true}

// splitPytest separates a pytest command line (without the program) into its
// options, each with its value, in their order, and the paths it names to
// test (files, directories, node ids), as pytest's own parser reads them.
func splitPytest(args []string) (opts, paths []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := i+1 < len(args)
		switch {
		case a == "--":
			return opts, append(paths, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			opts = append(opts, a)
			if strings.Contains(a, "=") || !next {
				continue
			}
			if pytestValueOptions[a] || (pytestOptionalValue[a] && !strings.HasPrefix(args[i+1], "-")) {
				i++
				opts = append(opts, args[i])
			}
		case strings.HasPrefix(a, "-") && a != "-":
			opts = append(opts, a)
			if next && shortTakesNext(a) {
				i++
				opts = append(opts, args[i])
			}
		default:
			paths = append(paths, a)
		}
	}
	return opts, paths
}

// shortTakesNext reports whether a cluster of short options ends with one that
// takes the next argument as its value: "-vk" does; "-kfoo", "-rA" and "-k=x"
// carry theirs.
func shortTakesNext(a string) bool {
	for j := 1; j < len(a); j++ {
		if pytestValueOptions["-"+a[j:j+1]] {
			return j == len(a)-1
		}
	}
	return false
}

// PytestPaths are the paths a pytest command names, in the form the tests'
// own paths have: cleaned, and relative to dir (the run directory) when they
// are inside it ("./tests/" is "tests", "/wt/tests/a.py::t" is "tests/a.py::t").
func PytestPaths(command []string, dir string) []string {
	if len(command) < 2 {
		return nil
	}
	_, paths := splitPytest(command[1:])
	return uniquePaths(paths, dir)
}

// PytestCovers reports whether the pytest path or node id p is one of paths or
// inside one: a file of a directory, a test of a file, a parameter of a test.
// No paths covers everything (pytest runs its whole suite).
func PytestCovers(paths []string, p string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, r := range paths {
		if within(p, r) {
			return true
		}
	}
	return false
}

// PytestOverlaps reports whether the pytest path or node id p and one of paths
// hold tests in common: p is inside one (PytestCovers), or one is inside p (a
// test of a file, the file of a directory).
func PytestOverlaps(paths []string, p string) bool {
	if PytestCovers(paths, p) {
		return true
	}
	for _, r := range paths {
		if within(r, p) {
			return true
		}
	}
	return false
}

// within reports whether the path or node id p is r or inside it.
func within(p, r string) bool {
	if r == "." || p == r {
		return true
	}
	if !strings.HasPrefix(p, r) {
		return false
	}
	rest := p[len(r)]
	if strings.Contains(r, "::") {
		return strings.HasPrefix(p[len(r):], "::") || rest == '['
	}
	return rest == '/' || strings.HasPrefix(p[len(r):], "::")
}

// normPath is a pytest path or node id as the tests' paths are written: the
// file part cleaned ("./x" and "x/" are "x"), relative to dir when it is an
// absolute path inside it.
func normPath(p, dir string) string {
	file, id, hasID := strings.Cut(p, "::")
	if filepath.IsAbs(file) && dir != "" {
		if rel, err := filepath.Rel(dir, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file = filepath.ToSlash(rel)
		}
	}
	if file != "" {
		file = path.Clean(file)
	}
	if hasID {
		return file + "::" + id
	}
	return file
}

// uniquePaths are paths normalised (normPath), each once, in their order.
func uniquePaths(paths []string, dir string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		n := normPath(p, dir)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// pytestSelect is what a pytest run of some tests is given instead of the
// command's own paths: each selected path or id inside one of the command's
// paths; where the command names something narrower inside a selected one (a
// test of a selected file), that; a selection the command's paths do not
// relate to, as it is (a proof names its tests). Nothing is given twice, nor
// inside another one given (pytest 7 runs a file given twice twice).
func pytestSelect(cmdPaths, sel []string, dir string) []string {
	sel = uniquePaths(sel, dir)
	var out []string
	for _, s := range sel {
		if PytestCovers(cmdPaths, s) {
			out = append(out, s)
			continue
		}
		var narrower []string
		for _, c := range cmdPaths {
			if within(c, s) {
				narrower = append(narrower, c)
			}
		}
		if len(narrower) == 0 {
			narrower = []string{s}
		}
		out = append(out, narrower...)
	}
	return outermost(uniquePaths(out, ""))
}

// outermost drops the paths inside another one of paths, keeping the order.
func outermost(paths []string) []string {
	var out []string
	for i, p := range paths {
		inside := false
		for j, q := range paths {
			if i != j && p != q && within(p, q) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}

// pytestCommand is the pytest command line that runs sel (the paths and ids
// of pytestSelect) where the command would run its own paths: its options and
// their values kept in their order, its paths replaced. A path that starts
// with "-" is written "./-…", so pytest does not read it as an option. With
// no selection the command is as it is, and its paths are what it names.
func pytestCommand(command, sel []string, dir string) (argv, paths []string) {
	opts, own := splitPytest(command[1:])
	if len(sel) == 0 {
		return command, own
	}
	paths = pytestSelect(uniquePaths(own, dir), sel, dir)
	for i, p := range paths {
		if strings.HasPrefix(p, "-") {
			paths[i] = "./" + p
		}
	}
	return append([]string{command[0]}, opts...), paths
}
