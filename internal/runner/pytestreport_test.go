package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pytestSuite is every kind of outcome pytest reports, and node ids that do
// not survive JUnit's classname and name.
var pytestSuite = map[string]string{
	"conftest.py": "import pytest\n\npytest_plugins = ['pytester']\n\n@pytest.fixture\ndef broken_setup():\n    raise RuntimeError('setup broke')\n\n" +
		"@pytest.fixture\ndef broken_teardown():\n    yield\n    raise RuntimeError('teardown broke')\n",
	"calc.py": "def add(a, b):\n    return a + b\n",
	"tests/test_kinds.py": `import pytest
import calc


def test_pass():
    assert calc.add(1, 1) == 2


def test_assert():
    assert calc.add(1, 1) == 3


def test_raises():
    raise ValueError("not by assertion")


def test_setup_error(broken_setup):
    pass


def test_teardown_error(broken_teardown):
    pass


def test_fail_and_teardown_error(broken_teardown):
    assert False


@pytest.mark.skip(reason="later")
def test_skip_marker():
    pass


def test_skip_inside():
    pytest.skip("not here")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    pass


@pytest.mark.xfail(strict=True, reason="must fail")
def test_xpass_strict():
    pass


@pytest.mark.parametrize("v", ["a b", "x[1]", "ünï", "tab\there", "new\nline", "a::b", "back\\slash"])
def test_ids(v):
    assert v != "a::b"


class TestOuter:
    def test_m(self):
        pass

    class TestInner:
        def test_n(self):
            assert 0
`,
	"tests/base.py":             "class Base:\n    def test_inherited(self):\n        assert False\n",
	"tests/test_inherit.py":     "from tests.base import Base\n\n\nclass TestChild(Base):\n    pass\n",
	"tests/__init__.py":         "",
	"tests/test_broken.py":      "import no_such_module_here\n\n\ndef test_never():\n    pass\n",
	"tests/test_module_skip.py": "import pytest\n\npytest.skip('not on this machine', allow_module_level=True)\n\n\ndef test_never():\n    pass\n",
	"tests/sub/test_ünï.py":     "def test_unicode_file():\n    pass\n",
	// pytest run by a test, in a process of its own and inline: their
	// tests are not the run's (test_many makes the report outgrow Python's
	// buffer first, so that a second writer would show)
	"tests/test_many.py": "import pytest\n\n\n@pytest.mark.parametrize('i', range(300))\ndef test_many(i):\n    pass\n",
	"tests/test_nested.py": `import subprocess
import sys


def test_runs_pytest(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_inner_fails():\n    assert False\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)], capture_output=True)
    assert r.returncode == 1, r.stdout


def test_runs_pytest_inline(pytester):
    pytester.makepyfile("def test_inline_fails():\n    assert False\n")
    pytester.inline_run().assertoutcome(failed=1)
`,
}

// The reporter says what pytest's JUnit report says, test by test, from the
// same run; and it names each test by its node id, where JUnit's attributes
// cannot (ids with "::" in a parameter, a test inherited from another
// module's class).
func TestPytestReportAgreesWithJUnit(t *testing.T) {
	requirePytest(t)
	dir := t.TempDir()
	for name, content := range pytestSuite {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	junit, report := filepath.Join(out, "report.xml"), filepath.Join(out, "report.tsv")
	env, err := withPytestPlugin(Seal(os.Environ(), nil), out, report)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"pytest"}, pytestArgs(dir, nil)...)
	cmd := exec.Command(argv[0], append(argv[1:], "--junitxml="+junit, "-o", "junit_family=xunit1")...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
	fromJUnit, err := readJUnit(junit)
	if err != nil {
		t.Fatal(err)
	}
	fromPlugin, err := readPytestReport(report)
	if err != nil {
		t.Fatal(err)
	}
	ids := collectedIDs(t, dir, env)
	byID := map[string]Test{}
	for _, tt := range fromPlugin {
		byID[tt.ID] = tt
	}
	if len(fromPlugin) != len(fromJUnit) {
		t.Errorf("%d tests, JUnit %d", len(fromPlugin), len(fromJUnit))
	}
	for i, j := range fromJUnit {
		if i >= len(fromPlugin) {
			break
		}
		p := fromPlugin[i]
		if j.ID != p.ID {
			// JUnit's id is rebuilt from its attributes; the reporter's is
			// pytest's own, which must be collected (a collection error
			// names its file)
			if !ids[p.ID] && !p.Collection {
				t.Errorf("reporter's id %q is no collected node id (JUnit: %q)", p.ID, j.ID)
			}
			t.Logf("JUnit names %q, the reporter %q", j.ID, p.ID)
			j.ID = p.ID
		}
		if !reflect.DeepEqual(j, p) {
			t.Errorf("test %d:\n reporter %+v\n JUnit    %+v", i, p, j)
		}
	}
	for id, want := range map[string]Outcome{
		"tests/test_kinds.py::test_pass": Passed, "tests/test_kinds.py::test_assert": Failed,
		"tests/test_kinds.py::test_raises": Failed, "tests/test_kinds.py::test_setup_error": Errored,
		"tests/test_kinds.py::test_teardown_error": Errored, "tests/test_kinds.py::test_fail_and_teardown_error": Errored, // the second of two
		"tests/test_kinds.py::test_skip_marker": Skipped, "tests/test_kinds.py::test_skip_inside": Skipped,
		"tests/test_kinds.py::test_xfail": Skipped, "tests/test_kinds.py::test_xpass": Passed,
		"tests/test_kinds.py::test_xpass_strict": XPassed, "tests/test_kinds.py::test_ids[a::b]": Failed,
		"tests/test_kinds.py::TestOuter::TestInner::test_n": Failed, "tests/test_inherit.py::TestChild::test_inherited": Failed,
		"tests/test_broken.py": Errored, "tests/test_module_skip.py": Skipped, "tests/sub/test_ünï.py::test_unicode_file": Passed,
		"tests/test_nested.py::test_runs_pytest": Passed, "tests/test_nested.py::test_runs_pytest_inline": Passed,
	} {
		if got, ok := byID[id]; !ok || got.Outcome != want {
			t.Errorf("%s: %+v, want %s", id, got, want)
		}
	}
	if m := byID["tests/test_kinds.py::test_setup_error"].Message; !strings.Contains(m, "setup broke") {
		t.Errorf("setup error's message: %q", m)
	}
	for id := range byID {
		if strings.Contains(id, "inner") || strings.Contains(id, "inline_fails") {
			t.Errorf("a test of a pytest the tests ran was reported: %s", id)
		}
	}
	if c := byID["tests/test_broken.py"]; !c.Collection || !strings.Contains(c.Message, "no_such_module_here") {
		t.Errorf("collection error: %+v", c)
	}
}

// collectedIDs are the node ids pytest collects in dir.
func collectedIDs(t *testing.T, dir string, env []string) map[string]bool {
	t.Helper()
	cmd := exec.Command("pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "--rootdir="+dir, "-c", os.DevNull, "--continue-on-collection-errors")
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.Output()
	ids := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "::") {
			ids[line] = true
		}
	}
	return ids
}

func TestParsePytestReport(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []Test
		err        string
	}{
		{"escapes", "v\t1\nt\tcall\tfailed\ttests/t.py::test[a\\tb\\\\c]\ttests/t.py\tline one\\nline two\\r\ne\t1\n",
			[]Test{{ID: "tests/t.py::test[a\tb\\c]", File: "tests/t.py", Outcome: Failed, Message: "line one\nline two"}}, ""},
		{"setup error wins over the call", "v\t1\nt\tsetup\tfailed\tt.py::a\tt.py\tboom\nt\tteardown\tpassed\tt.py::a\tt.py\t\ne\t1\n",
			[]Test{{ID: "t.py::a", File: "t.py", Outcome: Errored, Message: "boom"}}, ""},
		{"teardown error after a failure: two, as in JUnit", "v\t1\nt\tcall\tfailed\tt.py::a\tt.py\tassert\nt\tteardown\tfailed\tt.py::a\tt.py\tteardown\ne\t1\n",
			[]Test{{ID: "t.py::a", File: "t.py", Outcome: Failed, Message: "assert"}, {ID: "t.py::a", File: "t.py", Outcome: Errored, Message: "teardown"}}, ""},
		{"teardown error after a pass", "v\t1\nt\tcall\tpassed\tt.py::a\tt.py\t\nt\tteardown\tfailed\tt.py::a\tt.py\tteardown\ne\t1\n",
			[]Test{{ID: "t.py::a", File: "t.py", Outcome: Errored, Message: "teardown"}}, ""},
		{"strict xpass", "v\t1\nt\tcall\tfailed\tt.py::a\tt.py\t[XPASS(strict)] must fail\ne\t1\n",
			[]Test{{ID: "t.py::a", File: "t.py", Outcome: XPassed, Message: "[XPASS(strict)] must fail"}}, ""},
		{"collection error", "v\t1\nc\tcollect\tfailed\tt.py\tt.py\tImportError\ne\t2\n",
			[]Test{{ID: "t.py", File: "t.py", Outcome: Errored, Message: "ImportError", Collection: true}}, ""},
		{"no end: pytest stopped", "v\t1\nt\tcall\tpassed\tt.py::a\tt.py\t\n", nil, "incomplete"},
		{"not the reporter's", "<?xml version=\"1.0\"?>\n", nil, "not a git-tdd pytest report"},
		{"a line cut short", "v\t1\nt\tcall\tpassed\n", nil, "not valid"},
		{"empty", "", nil, "not a git-tdd pytest report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePytestReport([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%+v %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

func TestReachesPytest(t *testing.T) {
	for argv, want := range map[string]bool{
		"pytest -v": true, "/usr/bin/pytest": true, "py.test": true, "python -m pytest": true, "python3.12 -m pytest -x": true,
		"uv run pytest": true, "poetry run python -m pytest": true, "hatch run pytest": true,
		"tox -e py": false, "nox": false, "make test": false, "python -m unittest": false, "python3-config": false,
		"uv run --with x pytest": false, "sh -c pytest": false, "pythonw -m pytest": false,
	} {
		if got := reachesPytest(strings.Fields(argv)); got != want {
			t.Errorf("%s: %v, want %v", argv, got, want)
		}
	}
}

// A [test] command that does not pass the reporter's variables on says so,
// instead of a run with no verdict.
func TestPytestWithoutTheReporter(t *testing.T) {
	requirePytest(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "test_a.py"), []byte("def test_a():\n    pass\n"), 0o644)
	wrapper := filepath.Join(t.TempDir(), "pytest")
	real, _ := exec.LookPath("pytest")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec env -u PYTEST_PLUGINS "+real+" \"$@\"\n"), 0o755)
	_, err := Run(context.Background(), Spec{Command: []string{wrapper}, Runner: "pytest", Timeout: time.Minute, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "without loading git-tdd's reporter") {
		t.Errorf("err %v", err)
	}
}

// A temporary directory PYTHONPATH cannot name (a ':' in its path) gets
// pytest's JUnit report instead of the reporter, and the same verdict.
func TestPytestReportsWhereTheReporterCannotBeNamed(t *testing.T) {
	requirePytest(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "test_a.py"), []byte("def test_a():\n    assert False\n"), 0o644)
	tmp := filepath.Join(t.TempDir(), "a:b")
	os.Mkdir(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	res, err := Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir})
	if err != nil || res.Exit != 1 || len(res.Tests) != 1 || res.Tests[0].Outcome != Failed {
		t.Fatalf("%+v %v", res, err)
	}
}

// A report in a place the tests can write is read only as the file the run
// was to write: not through a link, not a FIFO (git-tdd would wait for a
// writer for good), not beyond its bound.
func TestReadReportRefusesWhatTheTestsPutInItsPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink("/dev/zero", link)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for path, want := range map[string]string{fifo: "is a FIFO", link: "is a symbolic link", sub: "is a directory", "/dev/null": "is a device"} {
		_, err := readReport(path)
		var re *ReportError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a ReportError saying %q", path, err, want)
		}
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("v\t1\ne\t0\n"), 0o644)
	if data, err := readReport(ok); err != nil || string(data) != "v\t1\ne\t0\n" {
		t.Errorf("a regular report: %q %v", data, err)
	}
}

// Under real pytest-xdist (-n 2) the controller reports every test its
// workers ran, and the workers write nothing (they start after the
// controller took the report's variable, and skip as workers besides): the
// same tests and outcomes as JUnit's report of the same run.
func TestPytestReportUnderXdist(t *testing.T) {
	requirePytest(t)
	if err := exec.Command("pytest", "-p", "xdist", "--version").Run(); err != nil {
		if os.Getenv("GIT_TDD_REQUIRE_PYTEST") != "" {
			t.Fatal("pytest-xdist is required with GIT_TDD_REQUIRE_PYTEST (apt-get install python3-pytest-xdist)")
		}
		t.Skip("pytest-xdist is not installed")
	}
	dir := t.TempDir()
	var src strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&src, "def test_%d():\n    assert %d %% 7 != 3\n\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "test_many.py"), []byte(src.String()), 0o644)
	out := t.TempDir()
	junit, report := filepath.Join(out, "report.xml"), filepath.Join(out, "report.tsv")
	env, err := withPytestPlugin(Seal(os.Environ(), nil), out, report)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"-n", "2"}, pytestArgs(dir, nil)...)
	cmd := exec.Command("pytest", append(argv, "--junitxml="+junit, "-o", "junit_family=xunit1")...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("pytest -n 2: %v\n%s", err, out)
	}
	fromJUnit, err := readJUnit(junit)
	if err != nil {
		t.Fatal(err)
	}
	fromPlugin, err := readPytestReport(report)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := func(ts []Test) map[string]Outcome {
		m := map[string]Outcome{}
		for _, tt := range ts {
			m[tt.ID] = tt.Outcome
		}
		return m
	}
	if len(fromPlugin) != 40 || !reflect.DeepEqual(outcomes(fromPlugin), outcomes(fromJUnit)) {
		t.Errorf("reporter %d tests %v\nJUnit %v", len(fromPlugin), outcomes(fromPlugin), outcomes(fromJUnit))
	}
}

// Once pytest has reported its session and run its own clean-up, the
// reporter ends it, without the interpreter's teardown (20 ms and more of a
// run: every module and object freed one by one), unless that teardown may
// still do something: an exit handler registered during the session, or a
// thread that is still running. The exit code and the output are pytest's.
func TestPytestEndsOnceReported(t *testing.T) {
	requirePytest(t)
	// an object whose teardown leaves a file: only the interpreter's
	// teardown makes it
	conftest := "import os\n\n\nclass Marker:\n    def __del__(self, _open=open, _path=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'torn-down')):\n        _open(_path, 'w').close()\n\n\n_marker = Marker()\n"
	tests := []struct {
		name     string
		test     string
		exit     int
		summary  string
		tornDown bool
	}{
		{"a failing test", "def test_a():\n    assert False\n", 1, "1 failed", false},
		{"a passing test", "def test_a():\n    pass\n", 0, "1 passed", false},
		{"no test", "x = 1\n", 5, "no tests ran", false},
		{"an exit handler registered by a test", "import atexit\n\n\ndef test_a():\n    atexit.register(lambda: open('handled', 'w').close())\n", 0, "1 passed", true},
		{"a thread still running", "import threading, time\n\n\ndef later():\n    time.sleep(0.3)\n    open('handled', 'w').close()\n\n\ndef test_a():\n    threading.Thread(target=later).start()\n", 0, "1 passed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "conftest.py"), []byte(conftest), 0o644)
			os.WriteFile(filepath.Join(dir, "test_it.py"), []byte(tt.test), 0o644)
			res, err := Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if res.Exit != tt.exit || !strings.Contains(res.Tail, tt.summary) {
				t.Errorf("exit %d, want %d; output:\n%s", res.Exit, tt.exit, res.Tail)
			}
			_, err = os.Stat(filepath.Join(dir, "torn-down"))
			if torn := err == nil; torn != tt.tornDown {
				t.Errorf("interpreter torn down: %v, want %v", torn, tt.tornDown)
			}
			if tt.tornDown {
				if _, err := os.Stat(filepath.Join(dir, "handled")); err != nil {
					t.Error("what the tests left to do at exit was not done")
				}
			}
		})
	}
}

// Real pytest-cov: coverage registers its exit handler during the session,
// so pytest ends as it always does, and its data and report are written.
func TestPytestEndsWithCoverageAsAlways(t *testing.T) {
	requirePytest(t)
	if err := exec.Command("pytest", "-p", "pytest_cov", "--version").Run(); err != nil {
		if os.Getenv("GIT_TDD_REQUIRE_PYTEST") != "" {
			t.Fatal("pytest-cov is required with GIT_TDD_REQUIRE_PYTEST (apt-get install python3-pytest-cov)")
		}
		t.Skip("pytest-cov is not installed")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "calc.py"), []byte("def add(a, b):\n    return a + b\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "test_calc.py"), []byte("import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n"), 0o644)
	res, err := Run(context.Background(), Spec{Command: []string{"pytest", "--cov=calc", "--cov-report=xml", "--cov-report=term"}, Runner: "pytest", Timeout: time.Minute, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit != 0 || len(res.Tests) != 1 || !strings.Contains(res.Tail, "calc.py") {
		t.Fatalf("exit %d, %d tests; output:\n%s", res.Exit, len(res.Tests), res.Tail)
	}
	for _, f := range []string{".coverage", "coverage.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("pytest-cov's %s: %v", f, err)
		}
	}
}

// An exception after the reporter's pytest_sessionfinish (in a conftest's or
// a plugin's sessionfinish, in a pytest_unconfigure, in a clean-up) makes
// pytest end with a traceback and exit 1; its session status is still 0
// (every test passed), and the reporter's os._exit, run by the clean-ups
// main() runs again on the way out, ends the process with that 0, the
// traceback unprinted. Green's "Exit == 0" then holds for a run that broke.
func TestPytestEarlyExitKeepsAnErrorAfterTheSession(t *testing.T) {
	requirePytest(t)
	for name, conftest := range map[string]string{
		"sessionfinish": "def pytest_sessionfinish(session, exitstatus):\n    raise RuntimeError('boom after the session')\n",
		"unconfigure":   "def pytest_unconfigure(config):\n    raise RuntimeError('boom after the session')\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "test_it.py"), []byte("def test_a():\n    pass\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "conftest.py"), []byte(conftest), 0o644)
			res, err := Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if res.RawExit == 0 || !strings.Contains(res.Tail, "boom after the session") {
				t.Errorf("exit %d (raw %d), want pytest's own 1 and its traceback; output:\n%s", res.Exit, res.RawExit, res.Tail)
			}
		})
	}
}
