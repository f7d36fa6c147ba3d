package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func requirePytest(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pytest"); err != nil {
		if os.Getenv("GIT_TDD_REQUIRE_PYTEST") != "" {
			t.Fatal("pytest is required (GIT_TDD_REQUIRE_PYTEST) but not installed")
		}
		t.Skip("pytest is not installed (apt-get install python3-pytest)")
	}
}

func TestParseJUnitNodeIDs(t *testing.T) {
	xml := `<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="7">
<testcase classname="tests.test_a" name="test_add" file="tests/test_a.py" line="2"/>
<testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py"><failure message="assert 5 == 6">long text</failure></testcase>
<testcase classname="tests.test_a.TestK" name="test_m" file="tests/test_a.py"><failure message="assert False"/></testcase>
<testcase classname="tests.test_a.TestK.Inner" name="test_n" file="tests/test_a.py"/>
<testcase classname="tests.test_a" name="test_p[2-x]" file="tests/test_a.py"><failure message="x"/></testcase>
<testcase classname="tests.test_a" name="test_err" file="tests/test_a.py"><error message="failed on setup">boom</error></testcase>
<testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py"><skipped type="pytest.skip" message="later"/></testcase>
<testcase classname="" name="tests.test_b" file="tests/test_b.py"><error message="collection failure">ImportError</error></testcase>
<testcase classname="pkg.Suite" name="case"/>
</testsuite></testsuites>`
	tests, err := ParseJUnit([]byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"tests/test_a.py::test_add passed", "tests/test_a.py::test_bad failed", "tests/test_a.py::TestK::test_m failed",
		"tests/test_a.py::TestK::Inner::test_n passed", "tests/test_a.py::test_p[2-x] failed", "tests/test_a.py::test_err error",
		"tests/test_a.py::test_skip skipped", "tests/test_b.py error", "pkg.Suite::case passed",
	}
	var got []string
	for _, tt := range tests {
		got = append(got, tt.ID+" "+string(tt.Outcome))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tests[1].Message != "long text" || tests[2].Message != "assert False" {
		t.Errorf("messages %q %q", tests[1].Message, tests[2].Message)
	}
	// a single <testsuite> at the top works too
	if one, err := ParseJUnit([]byte(`<testsuite><testcase classname="a" name="b" file="a.py"/></testsuite>`)); err != nil || len(one) != 1 {
		t.Errorf("%v %v", one, err)
	}
	if _, err := ParseJUnit([]byte("<testsuite")); err == nil {
		t.Error("accepted broken XML")
	}
}

func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(`<testsuite><testcase classname="a.b" name="c" file="a/b.py"><failure/></testcase></testsuite>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tests, err := ParseJUnit(data)
		if err != nil {
			return
		}
		for _, tt := range tests {
			switch tt.Outcome {
			case Passed, Failed, Errored, Skipped:
			default:
				t.Fatalf("outcome %q", tt.Outcome)
			}
		}
	})
}

func TestGoResults(t *testing.T) {
	ev := func(lines ...string) *bytes.Buffer { return bytes.NewBufferString(strings.Join(lines, "\n") + "\n") }
	tests := []struct {
		name  string
		in    *bytes.Buffer
		raw   int
		exit  int
		tests string
	}{
		{"pass", ev(`{"Action":"run","Package":"m/p","Test":"TestA"}`, `{"Action":"pass","Package":"m/p","Test":"TestA"}`), 0, 0, "m/p.TestA passed"},
		{"fail and skip", ev(`{"Action":"output","Package":"m/p","Test":"TestB","Output":"want 6\n"}`, `{"Action":"fail","Package":"m/p","Test":"TestB"}`,
			`{"Action":"skip","Package":"m/p","Test":"TestC"}`, `{"Action":"fail","Package":"m/p"}`), 1, 1, "m/p.TestB failed,m/p.TestC skipped"},
		{"build failure", ev(`{"ImportPath":"m/p","Action":"build-fail"}`, `{"Action":"fail","Package":"m/p","FailedBuild":"m/p"}`), 1, 2, ""},
		{"no tests", ev(`{"Action":"output","Package":"m/p","Output":"?   \tm/p\t[no test files]\n"}`, `{"Action":"skip","Package":"m/p"}`), 0, 5, ""},
		{"killed", ev(`{"Action":"run","Package":"m/p","Test":"TestA"}`), -1, -1, ""},
	}
	for _, tt := range tests {
		got, exit := goResults(tt.in, tt.raw)
		var s []string
		for _, g := range got {
			if g.Outcome != "" && (g.Outcome != Passed || tt.name == "pass") {
				s = append(s, g.ID+" "+string(g.Outcome))
			}
		}
		if exit != tt.exit || (tt.tests != "" && strings.Join(s, ",") != tt.tests) {
			t.Errorf("%s: exit %d tests %v, want %d %s", tt.name, exit, s, tt.exit, tt.tests)
		}
	}
	got, _ := goResults(ev(`{"Action":"output","Package":"m/p","Test":"TestB","Output":"want 6\n"}`, `{"Action":"fail","Package":"m/p","Test":"TestB"}`), 1)
	if got[0].Message != "want 6" {
		t.Errorf("message %q", got[0].Message)
	}
}

func TestGenericExitCodes(t *testing.T) {
	for raw, want := range map[int]int{0: 0, 1: 1, 3: 1, 42: 1} {
		res, err := Run(context.Background(), Spec{Command: []string{"sh", "-c", fmt.Sprintf("exit %d", raw)}, Runner: "generic", Timeout: 10 * time.Second})
		if err != nil || res.Exit != want || res.RawExit != raw {
			t.Errorf("exit %d: %+v %v", raw, res, err)
		}
	}
	if _, err := Run(context.Background(), Spec{Command: []string{"/nonexistent/tool"}, Runner: "generic", Timeout: time.Second}); err == nil {
		t.Error("a command that cannot start is an error")
	}
}

func TestStreamsWithElapsedTime(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Spec{Command: []string{"sh", "-c", "echo one; echo two >&2; printf three"},
		Runner: "generic", Timeout: 10 * time.Second, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "[") || !strings.HasSuffix(lines[0], "s] one") || !strings.HasSuffix(lines[2], "] three") {
		t.Errorf("%q", out.String())
	}
	if res.Tail != "one\ntwo\nthree" {
		t.Errorf("tail %q", res.Tail)
	}
}

// The timeout kills the tests and everything they started, also a daemon
// that left the session with setsid: nothing is left running.
func TestTimeoutLeavesNothingRunning(t *testing.T) {
	marker := fmt.Sprintf("%d%05d", os.Getpid(), time.Now().UnixNano()%100000)
	script := fmt.Sprintf("sleep 31.%s & setsid sh -c 'sleep 32.%s' & sleep 33.%s; wait", marker, marker, marker)
	start := time.Now()
	res, err := Run(context.Background(), Spec{Command: []string{"sh", "-c", script}, Runner: "generic", Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || time.Since(start) > 10*time.Second {
		t.Errorf("timed out %v after %v", res.TimedOut, time.Since(start))
	}
	if left := running(marker); len(left) > 0 {
		t.Errorf("left running: %v", left)
	}
}

func TestContextCancelKills(t *testing.T) {
	marker := fmt.Sprintf("%d%05d", os.Getpid(), time.Now().UnixNano()%100000+1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, Spec{Command: []string{"sh", "-c", "sleep 34." + marker}, Runner: "generic", Timeout: time.Minute})
	if err != context.DeadlineExceeded {
		t.Errorf("err = %v", err)
	}
	if left := running(marker); len(left) > 0 {
		t.Errorf("left running: %v", left)
	}
}

func running(marker string) []string {
	var left []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		b, _ := os.ReadFile(c)
		if strings.Contains(string(b), marker) {
			left = append(left, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return left
}

func TestPytest(t *testing.T) {
	requirePytest(t)
	dir := t.TempDir()
	write := func(p, c string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	write("conftest.py", "")
	write("calc/__init__.py", "def add(a, b):\n    return a + b\n")
	write("tests/test_a.py", "import calc\nimport pytest\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n"+
		"def test_bad():\n    assert calc.add(2, 3) == 6\n\nclass TestK:\n    def test_m(self):\n        assert False\n\n"+
		"@pytest.fixture\ndef boom():\n    raise RuntimeError('setup')\n\ndef test_err(boom):\n    pass\n\n"+
		"def test_skip():\n    pytest.skip('later')\n")
	spec := Spec{Command: []string{"pytest", "-v", "--tb=short"}, Runner: "pytest", Timeout: time.Minute, Dir: dir}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Outcome{"tests/test_a.py::test_add": Passed, "tests/test_a.py::test_bad": Failed,
		"tests/test_a.py::TestK::test_m": Failed, "tests/test_a.py::test_err": Errored, "tests/test_a.py::test_skip": Skipped}
	if res.Exit != 1 || len(res.Tests) != len(want) {
		t.Fatalf("exit %d tests %+v", res.Exit, res.Tests)
	}
	for _, tt := range res.Tests {
		if want[tt.ID] != tt.Outcome || tt.File != "tests/test_a.py" {
			t.Errorf("%+v", tt)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".pytest_cache")); err == nil {
		t.Error("pytest left its cache in the run directory")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", "__pycache__")); len(m) > 0 {
		t.Errorf("bytecode left behind: %v", m)
	}

	// a file that cannot be imported is reported as such, and the others still run
	write("tests/test_b.py", "from calc.missing import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n")
	res, err = Run(context.Background(), spec)
	if err != nil || res.Exit != 1 || len(res.Tests) != len(want)+1 {
		t.Fatalf("collection error: %+v %v", res, err)
	}
	if c, ok := res.Find("tests/test_b.py"); !ok || !c.Collection || c.Outcome != Errored || !strings.Contains(c.Message, "ModuleNotFoundError") {
		t.Errorf("collection error: %+v", c)
	}

	empty := t.TempDir()
	res, err = Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: empty})
	if err != nil || res.Exit != 5 {
		t.Errorf("no tests: %+v %v", res, err)
	}
}

func TestGoTest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/calc\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n\nfunc Mul(a, b int) int { return a + b }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "calc_test.go"), []byte("package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"want 6\")\n\t}\n}\n\nfunc TestOK(t *testing.T) {}\n"), 0o644)
	res, err := Run(context.Background(), Spec{Command: []string{"go", "test", "./..."}, Runner: "go", Timeout: 2 * time.Minute, Dir: dir,
		Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit != 1 {
		t.Fatalf("exit %d: %s", res.Exit, res.Tail)
	}
	if tt, ok := res.Find("example.com/calc.TestMul"); !ok || tt.Outcome != Failed || !strings.Contains(tt.Message, "want 6") {
		t.Errorf("%+v", res.Tests)
	}
	if tt, ok := res.Find("example.com/calc.TestOK"); !ok || tt.Outcome != Passed {
		t.Errorf("%+v", res.Tests)
	}
}

// TestPytestPinned: configuration and conftest.py files above the run
// directory are not read, whatever pytest would do on its own; selections and
// strict xfail passes are reported as such.
func TestPytestPinned(t *testing.T) {
	requirePytest(t)
	outer := t.TempDir()
	dir := filepath.Join(outer, "wt")
	write := func(name, content string) {
		p := filepath.Join(outer, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pytest.ini", "[pytest]\naddopts = -p no_such_plugin_anywhere\n")
	write("conftest.py", "raise SystemExit('the conftest.py above the worktree was loaded')\n")
	write("wt/tests/test_x.py", "import pytest\n\n@pytest.mark.xfail(strict=True)\ndef test_xp():\n    assert True\n\ndef test_ok():\n    pass\n\ndef test_other():\n    pass\n")
	res, err := Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir,
		Env: Seal(os.Environ(), nil)})
	if err != nil || res.Exit != 1 {
		t.Fatalf("%+v %v\n%s", res, err, res.Tail)
	}
	if x, ok := res.Find("tests/test_x.py::test_xp"); !ok || x.Outcome != XPassed {
		t.Errorf("strict xpass: %+v", res.Tests)
	}
	res, err = Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir,
		Env: Seal(os.Environ(), nil), Select: []string{"tests/test_x.py::test_ok"}})
	if err != nil || res.Exit != 0 || len(res.Tests) != 1 {
		t.Errorf("selected one test: %+v %v", res, err)
	}
	// the worktree's own configuration is read, even in a subdirectory of a selection
	write("wt/tests/pytest.ini", "[pytest]\naddopts = -p no_such_plugin_here\n")
	res, err = Run(context.Background(), Spec{Command: []string{"pytest"}, Runner: "pytest", Timeout: time.Minute, Dir: dir,
		Env: Seal(os.Environ(), nil), Select: []string{"tests/test_x.py"}})
	if err != nil || res.Exit != 3 || !strings.Contains(res.Tail, "no_such_plugin_here") {
		t.Errorf("the worktree's tests/pytest.ini was not read: %+v %v", res, err)
	}
}

func TestSeal(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/home/u", "PYTHONPATH=/evil", "PYTEST_ADDOPTS=-p evil", "PYTEST_PLUGINS=evil",
		"PYTHONSTARTUP=/evil.py", "PYTHONHOME=/evil", "PYTHONUSERBASE=/evil", "PYTHONSAFEPATH=1", "PYTHONIOENCODING=utf-8",
		"LD_PRELOAD=/evil.so", "BASH_ENV=/evil.sh", "BASH_FUNC_pytest%%=() { true; }", "GOFLAGS=-tags=cheat",
		"NODE_OPTIONS=--require /evil.js", "JAVA_TOOL_OPTIONS=-javaagent:/evil.jar", "GIT_DIR=/elsewhere",
		"GIT_TDD_AUTO=1", "LANG=C.UTF-8", "PY_IGNORE_IMPORTMISMATCH=1", "junk"}
	got := Seal(environ, map[string]string{"PYTHONPATH": "src", "DATABASE_URL": "sqlite://"})
	want := []string{"DATABASE_URL=sqlite://", "GIT_TDD_AUTO=1", "GOFLAGS=-count=1", "HOME=/home/u", "LANG=C.UTF-8",
		"PATH=/usr/bin", "PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "PYTHONNOUSERSITE=1", "PYTHONPATH=src"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Seal:\n got %q\nwant %q", got, want)
	}
	for _, name := range []string{"PYTHONWARNINGS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "RUSTC_WRAPPER", "CGO_LDFLAGS_ALLOW",
		// the human's servers
		"TMUX", "TMUX_PANE", "STY", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
		"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "GPG_TTY", "KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "WEZTERM_UNIX_SOCKET",
		"ZELLIJ_SESSION_NAME", "VSCODE_IPC_HOOK_CLI", "NVIM", "SWAYSOCK", "GIT_ASKPASS"} {
		if !IsRemoved(name) {
			t.Errorf("%s is passed to a sealed run", name)
		}
	}
	for _, name := range []string{"PATH", "HOME", "TMPDIR", "VIRTUAL_ENV", "GOCACHE", "GOPATH", "PYTHONUTF8", "GIT_AUTHOR_NAME",
		"TERM", "COLORTERM", "LANG", "XDG_RUNTIME_DIR", "USER"} {
		if IsRemoved(name) {
			t.Errorf("%s is removed from a sealed run", name)
		}
	}
}

func TestWithGoRun(t *testing.T) {
	got := withGoRun([]string{"go", "test", "-json", "./..."}, []string{"example.com/a.TestX", "example.com/b.TestY/sub", "example.com/a.TestX/other"})
	want := []string{"go", "test", "-run=^(TestX|TestY)$", "-json", "./..."}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWithGoPackages(t *testing.T) {
	pkgs := []string{"./calc", "./other"}
	tests := []struct {
		argv, want []string
	}{
		{[]string{"go", "test", "./..."}, []string{"go", "test", "./calc", "./other"}},
		{[]string{"go", "test", "-count", "1", "-tags", "integration", "./...", "example.com/x"}, []string{"go", "test", "-count", "1", "-tags", "integration", "./calc", "./other"}},
		{[]string{"go", "test", "-count=1", "-v", "./pkg/..."}, []string{"go", "test", "-count=1", "-v", "./calc", "./other"}},
		{[]string{"go", "test", "--timeout", "5m", "./...", "-args", "-update"}, []string{"go", "test", "--timeout", "5m", "./calc", "./other", "-args", "-update"}},
		{[]string{"/usr/local/go/bin/go", "test"}, []string{"/usr/local/go/bin/go", "test", "./calc", "./other"}},
		{[]string{"make", "test"}, []string{"make", "test"}},
		{[]string{"go", "vet", "./..."}, []string{"go", "vet", "./..."}},
	}
	for _, tt := range tests {
		if got := withGoPackages(tt.argv, pkgs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("withGoPackages(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
