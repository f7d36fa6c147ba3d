package runner

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pytestPlugin is git-tdd's pytest reporter (pytest_report.py), which red,
// green, merge and verify load in place of pytest's JUnit report: pytest
// takes 3 to 5 ms less (make bench).
//
//go:embed pytest_report.py
var pytestPlugin []byte

// pytestPluginModule is the plugin's module name, unlikely to shadow any.
const pytestPluginModule = "_git_tdd_pytest_report"

// reachesPytest reports whether argv runs pytest itself, so that the
// variables that load git-tdd's reporter reach it: pytest, python -m pytest,
// or either behind "uv run", "poetry run", "pipenv run", "pdm run", "hatch
// run" or "rye run". Another command (tox, nox, make, a script) may drop
// them: its run asks pytest for its JUnit report on the command line.
func reachesPytest(argv []string) bool {
	if len(argv) >= 3 && argv[1] == "run" {
		switch filepath.Base(argv[0]) {
		case "uv", "poetry", "pipenv", "pdm", "hatch", "rye":
			return reachesPytest(argv[2:])
		}
	}
	if len(argv) == 0 {
		return false
	}
	switch base := filepath.Base(argv[0]); {
	case base == "pytest" || base == "py.test":
		return true
	case strings.HasPrefix(base, "python") && strings.Trim(base[len("python"):], "0123456789.") == "":
		return len(argv) >= 3 && argv[1] == "-m" && argv[2] == "pytest"
	}
	return false
}

// withPytestPlugin writes the reporter into dir and returns env with the
// variables that load it and name its report: dir first on PYTHONPATH, the
// module added to PYTEST_PLUGINS (either kept as the committed [test] env
// sets it).
func withPytestPlugin(env []string, dir, report string) ([]string, error) {
	if err := os.WriteFile(filepath.Join(dir, pytestPluginModule+".py"), pytestPlugin, 0o444); err != nil {
		return nil, err
	}
	path, plugins := dir, pytestPluginModule
	if v := lastValue(env, "PYTHONPATH"); v != "" {
		path += string(os.PathListSeparator) + v
	}
	if v := lastValue(env, "PYTEST_PLUGINS"); v != "" {
		plugins = v + "," + plugins
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "PYTHONPATH" && name != "PYTEST_PLUGINS" && name != "GIT_TDD_PYTEST_REPORT" {
			out = append(out, kv)
		}
	}
	return append(out, "PYTHONPATH="+path, "PYTEST_PLUGINS="+plugins, "GIT_TDD_PYTEST_REPORT="+report), nil
}

// lastValue is name's value in env, the last one as exec uses.
func lastValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, name+"="); ok {
			v = rest
		}
	}
	return v
}

// errIncomplete is a report pytest did not finish: it stopped before its
// session ended.
var errIncomplete = errors.New("the report is incomplete: pytest stopped before its session ended")

func readPytestReport(path string) ([]Test, error) {
	data, err := readReport(path)
	if err != nil {
		return nil, err
	}
	return ParsePytestReport(data)
}

// ParsePytestReport reads the reporter's lines into tests, in the order
// pytest first reported them, each with the outcome its JUnit report would
// give: an error in setup or teardown first, then a failure in the call (a
// strict xfail that passed is XPassed), then a skip; else passed. A call that
// fails and a teardown that fails after it are two tests of the same id, the
// failure, then the error, as in JUnit. A collection error or skip is a test
// named by its file (Collection).
func ParsePytestReport(data []byte) ([]Test, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != "v\t1" {
		return nil, errors.New("not a git-tdd pytest report")
	}
	type state struct {
		test                     Test
		errored, failed, skipped bool
	}
	byID := map[string]*state{}
	var order []*state
	ended := false
	for n, line := range lines[1:] {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if f[0] == "e" && len(f) == 2 {
			ended = true
			continue
		}
		if len(f) != 6 || (f[0] != "t" && f[0] != "c") {
			return nil, fmt.Errorf("line %d of the pytest report is not valid", n+2)
		}
		for i := range f {
			f[i] = unescapeField(f[i])
		}
		kind, when, outcome, id, file, msg := f[0], f[1], f[2], f[3], f[4], f[5]
		s := byID[id]
		if s == nil || (outcome == "failed" && when == "teardown" && s.failed) {
			// a teardown that fails after a failed call is a test of its
			// own, as JUnit's schema makes it: the failure, then the error
			s = &state{test: Test{ID: id, File: file, Outcome: Passed, Collection: kind == "c"}}
			byID[id] = s
			order = append(order, s)
		}
		switch {
		case outcome == "failed" && (kind == "c" || when != "call"):
			if !s.errored {
				s.errored, s.test.Message = true, msg
			}
		case outcome == "failed":
			if !s.errored && !s.failed {
				s.failed, s.test.Message = true, msg
			}
		case outcome == "skipped":
			if !s.errored && !s.failed && !s.skipped {
				s.skipped, s.test.Message = true, msg
			}
		}
	}
	if !ended {
		return nil, errIncomplete
	}
	out := make([]Test, 0, len(order))
	for _, s := range order {
		switch {
		case s.errored:
			s.test.Outcome = Errored
		case s.failed && strings.HasPrefix(s.test.Message, "[XPASS(strict)]"):
			s.test.Outcome = XPassed
		case s.failed:
			s.test.Outcome = Failed
		case s.skipped:
			s.test.Outcome = Skipped
		}
		s.test.Message = trimMessage(s.test.Message)
		out = append(out, s.test)
	}
	return out, nil
}

// unescapeField undoes the reporter's escapes: \\, \t, \n and \r.
func unescapeField(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
