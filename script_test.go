package gittdd_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-tdd/git-tdd/internal/agent/llmtest"
	"github.com/git-tdd/git-tdd/internal/diffgate"
	"github.com/git-tdd/git-tdd/internal/gocache"
	"github.com/git-tdd/git-tdd/internal/sandbox"
	"github.com/git-tdd/git-tdd/internal/tdd"
	"github.com/git-tdd/git-tdd/internal/ttydriver"
)

// commands are the executables scripts run: the toolkit itself, built into the test
// binary, and ttyrun, which answers prompts on a real pseudo-terminal.
var commands = map[string]func(){
	"git-diffgate": func() { os.Exit(diffgate.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	"git-tdd":      func() { os.Exit(tdd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	"ttyrun":       func() { os.Exit(ttydriver.Main()) },
	"llmserver":    llmServer,
}

// llmServer serves a model API for scripts from a script of answers
// (internal/agent/llmtest): llmserver [-log DIR] SCRIPT.json URLFILE. Its URL
// is written to URLFILE once it listens; each request's body is kept in DIR;
// it runs until killed.
func llmServer() {
	args := os.Args[1:]
	logDir := ""
	if len(args) > 1 && args[0] == "-log" {
		logDir, args = args[1], args[2:]
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: llmserver [-log DIR] SCRIPT.json URLFILE")
		os.Exit(2)
	}
	steps, err := llmtest.Load(args[0])
	if err == nil && logDir != "" {
		err = os.MkdirAll(logDir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv := llmtest.Start(steps, logDir)
	if err := os.WriteFile(args[1], []byte(srv.URL), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	select {}
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == gocache.Command {
		// a confined go test's GOCACHEPROG: git-tdd's own executable, here
		// the test binary
		os.Exit(tdd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if commands[filepath.Base(os.Args[0])] == nil {
		// Whatever the tests start has no controlling terminal, even when go test
		// runs in one: "no terminal" means none, and only ttyrun provides one.
		syscall.Setsid()
	}
	testscript.Main(m, commands)
}

// TestScripts runs testdata/script/*.txtar: real git in throw-away repositories
// with an isolated configuration.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

// scriptParams run the scripts of dir as TestScripts does.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		Setup:               setupGit,
		RequireExplicitExec: true,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits":         cmdExits,
			"lines":         cmdLines,
			"hostile-files": cmdHostileFiles,
			"bigline":       cmdBigLine,
			"capture":       cmdCapture,
			"waitfile":      cmdWaitFile,
			"jsonfields":    cmdJSONFields,
		},
		// [env:NAME] holds when NAME is set: scripts that need pytest skip without
		// it, unless GIT_TDD_REQUIRE_PYTEST is set (as CI does).
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "env:"); ok {
				return os.Getenv(name) != "", nil
			}
			if cond == "npmcache" {
				// npm, and the caches .ci/run fills with the packages of
				// testdata/js's lock files, which npm ci --offline installs from
				if _, err := exec.LookPath("npm"); err != nil {
					return false, nil
				}
				for _, d := range jsRecipes {
					if fi, err := os.Stat(filepath.Join(npmOfflineCache(), d, "_cacache")); err != nil || !fi.IsDir() {
						return false, nil
					}
				}
				return true, nil
			}
			if cond == "sandbox" {
				// this machine can confine an agent (Landlock, seccomp)
				return canConfine(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// skipWithoutSandbox skips a script that runs a command that confines what
// it runs (a gate's tests, lint and setup; an agent) on a machine that cannot
// confine, where the command refuses, unless GIT_TDD_REQUIRE_SANDBOX says
// the machine must (as CI does). A script that asks for --no-sandbox runs.
func skipWithoutSandbox(env *testscript.Env) {
	if os.Getenv("GIT_TDD_REQUIRE_SANDBOX") != "" || canConfine() {
		return
	}
	t, ok := env.T().(interface{ Name() string })
	if !ok {
		return
	}
	script := filepath.Join("testdata", "script", path.Base(t.Name())+".txtar")
	if data, err := os.ReadFile(script); err == nil && confinesSomething(string(data)) {
		env.T().Skip("this machine cannot confine what git tdd runs (Landlock ABI 3, seccomp): " + sandboxWhy())
	}
}

func canConfine() bool { return sandboxWhy() == "" }

// sandboxWhy is why this machine cannot confine, "" when it can.
func sandboxWhy() string {
	st, err := sandbox.Probe()
	if err == nil {
		err = st.Check(sandbox.Policy{})
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// confinesSomething reports whether a script runs a git tdd command that
// confines a program, without --no-sandbox.
func confinesSomething(script string) bool {
	confining := map[string]bool{"start": true, "red": true, "green": true, "merge": true, "verify": true,
		"lint": true, "run": true, "issue": true, "agent": true}
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(line, "-- ") {
			break // the files
		}
		_, cmd, ok := strings.Cut(line, "git tdd ")
		if !ok || strings.Contains(line, "--no-sandbox") {
			continue
		}
		word, _, _ := strings.Cut(cmd, " ")
		if confining[word] {
			return true
		}
	}
	return false
}

// goEnv is the host's go env: its build cache, so that scripts that run go
// test do not rebuild the standard library under their own HOME, and its module
// cache, so that install.sh builds offline.
var goEnv = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return nil
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 2 {
		return nil
	}
	return map[string]string{"GOCACHE": v[0], "GOMODCACHE": v[1]}
})

func setupGit(env *testscript.Env) error {
	skipWithoutSandbox(env)
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	// the fake agents, drafters and reviewers keep what they were asked
	// beside themselves: the user allows it, as one would a tool's cache
	gitconfig := "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n" +
		"[tdd \"sandbox\"]\n\twrite = " + filepath.Join(env.WorkDir, "agent") + "\n\twrite = " + filepath.Join(env.WorkDir, "fakes") + "\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_AUTHOR_NAME": "Script Tester", "GIT_AUTHOR_EMAIL": "script@example.com",
		"GIT_COMMITTER_NAME": "Script Tester", "GIT_COMMITTER_EMAIL": "script@example.com",
		"TERM": "xterm", "LC_ALL": "C.UTF-8",
	} {
		env.Setenv(k, v)
	}
	for k, v := range goEnv() {
		env.Setenv(k, v)
	}
	// the source tree, for the script that runs install.sh
	if src, err := os.Getwd(); err == nil {
		env.Setenv("SRC", src)
	}
	// the JS recipes' projects (package.json and lock file), at $WORK/js, and
	// the npm cache their packages are installed from, offline
	env.Setenv("NPM_OFFLINE_CACHE", npmOfflineCache())
	for _, d := range jsRecipes {
		if err := copyDir(filepath.Join("testdata", "js", d), filepath.Join(env.WorkDir, "js", d)); err != nil {
			return err
		}
	}
	// the scripted fake agent of git tdd run's scripts, at $WORK/agent
	src, err := os.ReadFile(filepath.Join("testdata", "agent", "fake_agent.py"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(env.WorkDir, "agent"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(env.WorkDir, "agent", "agent.py"), src, 0o644); err != nil {
		return err
	}
	// the JUnit-writing fake test runner of runner = "junit", at $WORK/junit,
	// the fake pagers, at $WORK/pager, and what a confined program can reach
	// (probe, probed), at $WORK/probe
	// and the dishonest agent of the sandbox's attack scripts, at $WORK/attacker
	for _, d := range []string{"junit", "pager", "probe", "attacker"} {
		if err := copyDir(filepath.Join("testdata", d), filepath.Join(env.WorkDir, d)); err != nil {
			return err
		}
	}
	// git tdd issue's fake drafter, reviewer, editor and gh, at $WORK/fakes
	return copyDir(filepath.Join("testdata", "issue"), filepath.Join(env.WorkDir, "fakes"))
}

// jsRecipes are the projects of testdata/js, one per JS recipe with packages.
var jsRecipes = []string{"vitest", "jest"}

// npmOfflineCache holds an npm cache per JS recipe (.ci/run fills them):
// $GIT_TDD_NPM_CACHE, else ~/.cache/git-tdd-ci/npm-offline. The scripts'
// setup copies one into the run's own cache and installs --offline: the
// sandbox lets setup reach the network, but a test should not need the
// registry, and npm writes to a cache it reads (a confined run cannot write
// this one).
func npmOfflineCache() string {
	if d := os.Getenv("GIT_TDD_NPM_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "git-tdd-ci", "npm-offline")
}

// copyDir copies the files of src into dst, keeping their modes.
func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// exits CODE PROGRAM [ARG...] runs a program and checks its exact exit code.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// lines N PREFIX FILE writes "PREFIX 1\n" … "PREFIX N\n" to FILE.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: lines N PREFIX FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", args[1], i)
	}
	path := ts.MkAbs(args[2])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte(b.String()), 0o644))
}

// hostileNames are file names that break naive tools.
var hostileNames = []string{
	"test; rm -rf.py", "$(touch pwned).txt", "`touch pwned2`.md", "-rf.txt", "--help",
	"sp ace's \"q\".txt", "new\nline.txt", "tab\there.txt", "caf\xe9.txt", "日本語.txt",
	"esc\x1b[2Jclear.txt",
}

// hostile-files DIR N writes N numbered lines into each hostile name under DIR.
func cmdHostileFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hostile-files DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	for _, name := range hostileNames {
		ts.Check(os.WriteFile(filepath.Join(ts.MkAbs(args[0]), name), []byte(b.String()), 0o644))
	}
}

// bigline SIZE CHAR FILE writes one line of SIZE bytes.
func cmdBigLine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: bigline SIZE CHAR FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(strings.Repeat(args[1], n)+"\n"), 0o644))
}

// capture VAR PROGRAM [ARG...] runs a program and sets VAR to its trimmed stdout.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: capture VAR PROGRAM [ARG...]")
	}
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		ts.Fatalf("%s: %v", strings.Join(args[1:], " "), err)
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// waitfile FILE waits (up to 10 s) until FILE exists and is not empty.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for i := 0; i < 1000; i++ {
		if fi, err := os.Stat(ts.MkAbs(args[0])); err == nil && fi.Size() > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear", args[0])
}

// jsonfields PATH KEY... checks that the JSON document on stdout has at PATH
// (keys and array indexes joined by ".", or "." for the whole document) an
// object with exactly the keys KEY...: the stable fields the man pages list.
func cmdJSONFields(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: jsonfields PATH KEY...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &doc); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	if args[0] != "." {
		for _, part := range strings.Split(args[0], ".") {
			switch v := doc.(type) {
			case map[string]any:
				doc = v[part]
			case []any:
				i, err := strconv.Atoi(part)
				if err != nil || i >= len(v) {
					ts.Fatalf("%s: no element %s", args[0], part)
				}
				doc = v[i]
			default:
				ts.Fatalf("%s: nothing at %s", args[0], part)
			}
		}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		ts.Fatalf("%s is not an object: %v", args[0], doc)
	}
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	want := append([]string{}, args[1:]...)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		ts.Fatalf("%s has the fields\n  %s\nwant\n  %s", args[0], strings.Join(got, " "), strings.Join(want, " "))
	}
}

func TestConfinesSomething(t *testing.T) {
	for script, want := range map[string]bool{
		"exec git tdd red\n":                                   true,
		"! exec git tdd green\n":                               true,
		"exits 2 git tdd merge 1\n":                            true,
		"ttyrun 'Merge?' 'y\\n' -- git tdd merge 1\n":          true,
		"exec git tdd red --no-sandbox\n":                      false,
		"exec git tdd status\nexec git diffgate report\n":      false,
		"exec git tdd list\n-- a.txt --\nexec git tdd red\n":   false,
		"exec git tdd --version\nexec git tdd agent -- true\n": true,
	} {
		if got := confinesSomething(script); got != want {
			t.Errorf("%q: %v, want %v", script, got, want)
		}
	}
}
