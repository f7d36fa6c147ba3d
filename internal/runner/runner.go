// Package runner runs a test command confined, with a timeout,
// streams its output with the elapsed time, and classifies every test from
// pytest's JUnit XML or go test -json.
package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/pytestconfig"
	"github.com/git-tdd/git-tdd/internal/sandbox"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Outcome is what happened to one test.
type Outcome string

// The outcomes of a test.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"  // an assertion failed
	Errored Outcome = "error"   // setup, teardown or collection broke
	Skipped Outcome = "skipped" // skipped or expected to fail
	// XPassed is a test marked xfail(strict=True) that passed: pytest reports
	// it as a failure, but nothing in it failed.
	XPassed Outcome = "xpassed"
)

// Test is one test's result.
type Test struct {
	ID      string  `json:"id"`   // pytest node id, or package.TestName for go
	File    string  `json:"file"` // the test file, relative to the run directory, when known
	Outcome Outcome `json:"outcome"`
	Message string  `json:"message,omitempty"`
	// Collection marks a test file that could not be collected (imported):
	// its ID is the file itself.
	Collection bool `json:"collection,omitempty"`
}

// Spec is what to run.
type Spec struct {
	Command []string
	Runner  string        // "pytest", "go", "junit" or "generic"
	Timeout time.Duration // 0: none
	Dir     string
	Env     []string  // nil: this process's environment; the gates pass Seal's
	Out     io.Writer // the live output; nil discards it
	// Select runs only these tests: pytest node ids or files; for go, test
	// names (their top-level function). Empty runs the whole command.
	Select []string
	// Packages, for go, replace the package patterns of a go test command.
	Packages []string
	// Sandbox, when set, confines the command (package sandbox); nil runs it
	// with the caller's rights (--no-sandbox).
	Sandbox *Sandbox
	// Warm, with Sandbox, is a helper started ahead in Dir (Prestart): the
	// run uses it instead of starting one, if it is unused.
	Warm *Warm
}

// Sandbox is how a run is confined: the policy, and the run's private
// temporary directory, writable in it, where the report is written.
type Sandbox struct {
	Policy  sandbox.Policy
	TempDir string
}

// tempDir is where the run's report goes: "" is the system's.
func (s Spec) tempDir() string {
	if s.Sandbox == nil {
		return ""
	}
	return s.Sandbox.TempDir
}

// Result is what a run proved.
type Result struct {
	// Exit is the exit code in pytest's terms, whatever the runner: 0 passed,
	// 1 tests failed, 2 interrupted or a collection or build error, 3 internal
	// error, 4 usage error, 5 no tests collected; -1 killed by a signal.
	Exit     int
	RawExit  int // the command's own exit code
	TimedOut bool
	Elapsed  time.Duration
	Tests    []Test
	Tail     string // the end of the output, to quote
	Runner   string
}

// With returns the tests with the outcome.
func (r *Result) With(o Outcome) []Test {
	var out []Test
	for _, t := range r.Tests {
		if t.Outcome == o {
			out = append(out, t)
		}
	}
	return out
}

// Find returns the test with id.
func (r *Result) Find(id string) (Test, bool) {
	for _, t := range r.Tests {
		if t.ID == id {
			return t, true
		}
	}
	return Test{}, false
}

const tailBytes = 16 << 10

// Run runs the tests. An error means the command could not be started (or its
// report not read), not that tests failed.
func Run(ctx context.Context, s Spec) (*Result, error) {
	if len(s.Command) == 0 {
		return nil, errors.New("no test command")
	}
	argv := append([]string{}, s.Command...)
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	var report string
	plugin := false // pytest reports through git-tdd's reporter, not JUnit
	switch s.Runner {
	case "pytest":
		dir, err := os.MkdirTemp(s.tempDir(), "git-tdd-pytest-*")
		if err != nil {
			return nil, err
		}
		if s.Sandbox == nil {
			defer os.RemoveAll(dir) // else it goes with the run's directory
		}
		cmd, paths := pytestCommand(s.Command, s.Select, s.Dir)
		argv = append(append([]string{}, cmd...), pytestArgs(s.Dir, paths)...)
		// a directory PYTHONPATH cannot name (a ':' in TMPDIR) gets JUnit's report
		if plugin = reachesPytest(cmd) && !strings.ContainsRune(dir, os.PathListSeparator); plugin {
			report = filepath.Join(dir, "report.tsv")
			if env, err = withPytestPlugin(env, dir, report); err != nil {
				return nil, err
			}
		} else {
			report = filepath.Join(dir, "report.xml")
			argv = append(argv, "--junitxml="+report, "-o", "junit_family=xunit1")
		}
		if len(s.Select) > 0 {
			argv = append(argv, paths...)
		}
	case "junit":
		// a directory of its own, so that the report is fresh and nothing
		// else can have put a file at its path
		tmp, err := os.MkdirTemp(s.tempDir(), "git-tdd-junit-*")
		if err != nil {
			return nil, err
		}
		if s.Sandbox == nil {
			defer os.RemoveAll(tmp) // else it goes with the run's directory
		}
		report = filepath.Join(tmp, "report.xml")
		argv = withReport(argv, report)
		env = withReport(env, report)
	case "go":
		if !containsArg(argv, "-json") {
			argv = withJSON(argv)
		}
		if len(s.Packages) > 0 {
			argv = withGoPackages(argv, s.Packages)
		}
		if len(s.Select) > 0 {
			argv = withGoRun(argv, s.Select)
		}
	}
	res, goEvents, err := execute(ctx, argv, env, s)
	if err != nil {
		return nil, err
	}
	switch s.Runner {
	case "pytest":
		res.Exit = res.RawExit
		if !res.TimedOut {
			if plugin {
				res.Tests, err = readPytestReport(report)
			} else {
				res.Tests, err = readJUnit(report)
			}
			var tampered *ReportError
			switch {
			case errors.As(err, &tampered):
				return nil, err
			case err != nil && res.RawExit == 0 && plugin && errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("pytest passed without loading git-tdd's reporter: the [test] command does not pass PYTEST_PLUGINS and PYTHONPATH on to pytest (runner = \"junit\" with --junitxml={junit} reports through pytest's JUnit report)")
			case err != nil && res.RawExit == 0:
				return nil, fmt.Errorf("pytest passed without writing its report: %w", err)
			case err != nil && res.RawExit != 2 && res.RawExit != 4 && res.RawExit != 5:
				// pytest stopped before it could report: a plugin or a
				// conftest.py that does not load is pytest's internal error
				res.Exit = 3
			}
		}
	case "go":
		res.Tests, res.Exit = goResults(goEvents, res.RawExit)
	case "junit":
		if res.TimedOut {
			res.Exit = -1
			break
		}
		if res.Tests, res.Exit, err = junitResults(report, res.RawExit, s.Dir); err != nil {
			return nil, err
		}
	default:
		res.Exit = min(res.RawExit, 1)
		if res.RawExit < 0 {
			res.Exit = -1
		}
	}
	return res, nil
}

// CanSelect reports whether a runner can run some tests only (Spec.Select);
// the others always run the whole command.
func CanSelect(runner string) bool { return runner == "pytest" || runner == "go" }

// withReport puts the report's path where the placeholder is.
func withReport(list []string, report string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ReplaceAll(s, ReportPlaceholder, report)
	}
	return out
}

// pytestArgs pin what pytest would otherwise take from outside the worktree
// dir: the root directory, the configuration file (looked for from the paths
// the run tests) and the conftest.py files are the worktree's own (pytest
// looks for them up to the file system's root); no cache is left in the
// worktree, where a red commit would pick it up; a test file that cannot be
// imported does not stop the others. The report is asked for apart: git-tdd's
// reporter, or JUnit's, xunit1, which carries each test's file.
func pytestArgs(dir string, paths []string) []string {
	cfg := pytestconfig.File(dir, paths)
	if cfg == "" {
		cfg = os.DevNull
	}
	return []string{"-p", "no:cacheprovider", "--rootdir=" + dir, "--confcutdir=" + dir, "-c", cfg, "--continue-on-collection-errors"}
}

// withGoRun limits go test to the top-level test functions of ids
// ("pkg.TestName/sub" runs TestName).
func withGoRun(argv, ids []string) []string {
	seen := map[string]bool{}
	var names []string
	for _, id := range ids {
		name := id[strings.LastIndexByte(id, '.')+1:]
		name, _, _ = strings.Cut(name, "/")
		if !seen[name] {
			seen[name] = true
			names = append(names, regexp.QuoteMeta(name))
		}
	}
	run := "-run=^(" + strings.Join(names, "|") + ")$"
	if len(argv) >= 2 && argv[1] == "test" {
		return append(argv[:2:2], append([]string{run}, argv[2:]...)...)
	}
	return append(argv, run)
}

// goValueFlags are go test's (and go build's) flags whose value may be the next
// argument, which is then not a package.
var goValueFlags = map[string]bool{
	"-run": true, "-skip": true, "-bench": true, "-benchtime": true, "-count": true, "-cpu": true,
	"-parallel": true, "-timeout": true, "-tags": true, "-p": true, "-o": true, "-exec": true,
	"-coverprofile": true, "-covermode": true, "-coverpkg": true, "-cpuprofile": true, "-memprofile": true,
	"-blockprofile": true, "-mutexprofile": true, "-outputdir": true, "-trace": true, "-ldflags": true,
	"-gcflags": true, "-asmflags": true, "-mod": true, "-modfile": true, "-vet": true, "-fuzz": true,
	"-fuzztime": true, "-shuffle": true, "-C": true, "-overlay": true, "-pkgdir": true, "-toolexec": true,
}

// withGoPackages replaces the package patterns of "go test [flags] [packages]
// [-args ...]" with pkgs; another command is left as it is.
func withGoPackages(argv, pkgs []string) []string {
	if len(argv) < 2 || (argv[0] != "go" && !strings.HasSuffix(argv[0], "/go")) || argv[1] != "test" {
		return argv
	}
	out := append([]string{}, argv[:2]...)
	rest := argv[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-args":
			out = append(append(out, pkgs...), rest[i:]...)
			return out
		case strings.HasPrefix(a, "-"):
			out = append(out, a)
			if !strings.Contains(a, "=") && goValueFlags["-"+strings.TrimLeft(a, "-")] {
				if i+1 < len(rest) {
					i++
					out = append(out, rest[i])
				}
			}
		}
	}
	return append(out, pkgs...)
}

// withJSON adds -json right after "go test", or at the end of another command.
func withJSON(argv []string) []string {
	if len(argv) >= 2 && (argv[0] == "go" || strings.HasSuffix(argv[0], "/go")) && argv[1] == "test" {
		return append(argv[:2:2], append([]string{"-json"}, argv[2:]...)...)
	}
	return append(argv, "-json")
}

func containsArg(argv []string, a string) bool {
	for _, x := range argv {
		if x == a {
			return true
		}
	}
	return false
}

// execute runs argv confined (the tests are an agent's code; see package
// confine), with its output merged into one pipe, read here line by line.
func execute(ctx context.Context, argv, env []string, s Spec) (*Result, *bytes.Buffer, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	var confined *sandbox.Wrapped
	var p *confine.Proc
	start := time.Now()
	if w := s.Warm.take(s); w != nil {
		pw.Close()
		pr, p, confined = w.out, w.proc, w.pending.Wrapped
		if err := w.pending.Send(s.Sandbox.Policy, argv, env); err != nil {
			p.Stop(time.Second)
			p.Wait()
			pr.Close()
			confined.Err()
			return nil, nil, err
		}
	} else {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = s.Dir, env, pw, pw
		if s.Sandbox != nil {
			if confined, err = s.Sandbox.Policy.Wrap(cmd); err != nil {
				pr.Close()
				pw.Close()
				return nil, nil, err
			}
		}
		p, err = confine.Start(cmd)
		if confined != nil {
			confined.Started()
		}
		if err != nil {
			pr.Close()
			pw.Close()
			return nil, nil, fmt.Errorf("running %s: %w", strings.Join(argv, " "), err)
		}
		pw.Close()
	}
	var goEvents bytes.Buffer
	tail := &tailBuffer{max: tailBytes}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		stream(pr, start, s, tail, &goEvents)
	}()
	// Wait kills whatever the tests left running, so that nothing outlives
	// the run or holds its output open.
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	res := &Result{Runner: s.Runner}
	var waitErr error
	var timeout <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case waitErr = <-exited:
	case <-timeout:
		res.TimedOut = true
		p.Stop(2 * time.Second)
		waitErr = <-exited
	case <-ctx.Done():
		p.Stop(2 * time.Second)
		<-exited
		pr.Close()
		if confined != nil {
			confined.Err() // closes the report pipe
		}
		return nil, nil, ctx.Err()
	}
	res.Elapsed = time.Since(start)
	select {
	case <-readDone:
	case <-time.After(5 * time.Second):
		pr.Close()
		<-readDone
	}
	pr.Close()
	// the sandbox's refusal, or a program it could not start, is no verdict:
	// its exit (126, 127) would read as a failing run
	if confined != nil {
		if err := confined.Err(); err != nil {
			return nil, nil, fmt.Errorf("running %s: %w", strings.Join(argv, " "), err)
		}
	}
	// a process the tests left that could not be killed: no verdict
	var left *confine.LeftError
	if errors.As(waitErr, &left) {
		return nil, nil, waitErr
	}
	res.RawExit = exitCode(waitErr)
	res.Tail = tail.String()
	return res, &goEvents, nil
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// stream copies the output line by line with the elapsed time in front, keeps
// its tail, and for go test -json keeps the events instead of showing them raw.
func stream(r io.Reader, start time.Time, s Spec, tail *tailBuffer, goEvents *bytes.Buffer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			shown := line
			if s.Runner == "go" {
				goEvents.Write(line)
				shown = goOutput(line)
			}
			if len(shown) > 0 {
				tail.Write(shown)
				if s.Out != nil {
					// the tests are the agent's code: what they print is
					// escaped, so it cannot write to the terminal (OSC 52 to
					// the clipboard, line wrap off, a cleared screen)
					text := strings.TrimRight(string(shown), "\r\n")
					fmt.Fprintf(s.Out, "[%6.1fs] %s\n", time.Since(start).Seconds(), term.Line(text, 0))
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
