package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// benchTDD: git tdd red on a branch that adds 1 test file to a suite of 50,
// against bare pytest of that one file (goal ≤ 1.2×); the added time of red and
// green over the same pytest command run bare (goal ≤ 50 ms); and git tdd status
// with 50 workflows (goal < 30 ms).
func benchTDD(r *runner) error {
	if _, err := exec.LookPath("pytest"); err != nil {
		fmt.Println("tdd      skipped: pytest is not installed")
		return nil
	}
	repo := filepath.Join(r.work, "tdd")
	files := map[string]string{"conftest.py": "", "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return 0\n"}
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("tests/test_add%02d.py", i)] = fmt.Sprintf("import calc\n\n\ndef test_add_%d():\n    assert calc.add(%d, 1) == %d\n", i, i, i+1)
	}
	if err := writeTree(repo, files); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "base"}} {
		if _, err := r.sh(repo, nil, "git", args...); err != nil {
			return err
		}
	}
	out, err := r.sh(repo, nil, "git", "tdd", "start", "1")
	if err != nil {
		return err
	}
	wt := strings.TrimSpace(string(out))
	test := "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
	if err := os.WriteFile(filepath.Join(wt, "tests", "test_mul.py"), []byte(test), 0o644); err != nil {
		return err
	}
	r.pipe = true
	t, err := r.measure(wt, [][]string{{"pytest", "-v", "--tb=short", "tests/test_mul.py"}, {"git", "tdd", "red"},
		{"git", "tdd", "red", "--no-sandbox"}}, 0, 1)
	r.pipe = false
	if err != nil {
		return err
	}
	bare, red, unconfined := t[0].median(), t[1].median(), t[2].median()
	impl := "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
	if err := os.WriteFile(filepath.Join(wt, "calc", "__init__.py"), []byte(impl), 0o644); err != nil {
		return err
	}
	// a refactoring each round, so that every green commits; a bare run of
	// the same (passing) suite before each, so that both see the same machine
	var greens, bares []time.Duration
	for i := 0; i < r.runs+1; i++ {
		if err := os.WriteFile(filepath.Join(wt, "calc", "__init__.py"), []byte(fmt.Sprintf("%s\n# round %d\n", impl, i)), 0o644); err != nil {
			return err
		}
		start := time.Now()
		if _, err := r.sh(wt, nil, "pytest", "-v", "--tb=short"); err != nil {
			return fmt.Errorf("bare pytest: %v", err)
		}
		mid := time.Now()
		if out, err := r.sh(wt, nil, "git", "tdd", "green"); err != nil {
			return fmt.Errorf("green: %v %s", err, out)
		}
		if i > 0 {
			bares, greens = append(bares, mid.Sub(start)), append(greens, time.Since(mid))
		}
	}
	green, bareGreen := medianOf(greens), medianOf(bares)
	ratio := float64(red) / float64(bare)
	fmt.Printf("tdd      red on a branch changing 1 of 51 test files: pytest of that file %v, git tdd red %v: %.2f× (goal ≤ 1.2×) %s\n",
		round(bare), round(red), ratio, verdict(ratio <= 1.2))
	fmt.Printf("         the sandbox: red confined %v, with --no-sandbox %v: %v more, %.2f× bare pytest unconfined\n",
		round(red), round(unconfined), round(red-unconfined), float64(unconfined)/float64(bare))
	fmt.Printf("         added: red %v; green (the whole suite) over bare pytest %v vs %v: %v (goal ≤ 50ms) %s\n",
		round(red-bare), round(bareGreen), round(green), round(green-bareGreen), verdict(red-bare <= 50*time.Millisecond && green-bareGreen <= 50*time.Millisecond))
	if err := benchStatus(r, repo); err != nil {
		return err
	}
	return benchRun(r)
}

// benchRedNamed: git tdd red when [test] command names its test file, as real
// projects write it (pytest tests/test_more.py), and the branch adds two
// failing tests to that file of 300, against bare pytest of the same command
// (goal ≤ 1.2×, the budget of a scoped red): the file runs once, and each
// failing id is recorded once.
func benchRedNamed(r *runner) error {
	if _, err := exec.LookPath("pytest"); err != nil {
		fmt.Println("named    skipped: pytest is not installed")
		return nil
	}
	repo := filepath.Join(r.work, "named")
	var more strings.Builder
	more.WriteString("import calc\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&more, "\n\ndef test_add_%d():\n    assert calc.add(%d, 1) == %d\n", i, i, i+1)
	}
	command := []string{"pytest", "-v", "--tb=short", "tests/test_more.py"}
	files := map[string]string{"conftest.py": "", "calc/__init__.py": "def add(a, b):\n    return a + b\n",
		"tests/test_more.py": more.String(), "tests/test_other.py": "def test_other():\n    pass\n",
		".git-tdd.toml": "[test]\ncommand = [\"" + strings.Join(command, "\", \"") + "\"]\n"}
	if err := writeTree(repo, files); err != nil {
		return err
	}
	steps := [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "add", "-A"}, {"git", "commit", "-qm", "base"}, {"git", "tdd", "start", "3"}}
	for _, args := range steps {
		if out, err := r.sh(repo, nil, args[0], args[1:]...); err != nil {
			return fmt.Errorf("%s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	wt := repo + "-issue-3"
	more.WriteString("\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n\n\ndef test_div():\n    assert calc.div(6, 3) == 2\n")
	if err := writeTree(wt, map[string]string{"tests/test_more.py": more.String()}); err != nil {
		return err
	}
	r.pipe = true
	t, err := r.measure(wt, [][]string{command, {"git", "tdd", "red"}}, 0, 1)
	r.pipe = false
	if err != nil {
		return err
	}
	msg, err := r.sh(wt, nil, "git", "log", "-1", "--format=%(trailers:key=TDD-Failing,valueonly)")
	if err != nil {
		return err
	}
	bare, red := t[0].median(), t[1].median()
	ratio := float64(red) / float64(bare)
	cpu := float64(t[1].medianCPU()) / float64(t[0].medianCPU())
	fmt.Printf("named    red, [test] command naming its file (%s, 302 tests): bare %v, git tdd red %v: %.2f× (goal ≤ 1.2×) %s; processor time %.2f×\n",
		strings.Join(command, " "), round(bare), round(red), ratio, verdict(ratio <= 1.2), cpu)
	if ids, want := strings.Fields(string(msg)), "tests/test_more.py::test_div tests/test_more.py::test_mul"; strings.Join(ids, " ") != want {
		return fmt.Errorf("red on a command that names its file recorded %q, want each failing id once: %s", ids, want)
	}
	return nil
}

// benchReprove: merge's re-proof against one bare run of the whole suite
// (goal ≤ 1.3×), through git tdd verify, which runs the same proof without a
// terminal: the red's tests at the red commit in a temporary worktree, then on
// the merge's first parent with only the branch's tests (skipped when that is
// the red commit's tree: the base has not moved), then the whole suite on the
// merge. Measured twice: a merge onto the base the branch started from, and
// one onto a base that moved on, where the proof on the base runs too. The
// suite is 50 files whose tests take about a second in all.
func benchReprove(r *runner) error {
	if _, err := exec.LookPath("pytest"); err != nil {
		fmt.Println("reprove  skipped: pytest is not installed")
		return nil
	}
	repo := filepath.Join(r.work, "reprove")
	files := map[string]string{"conftest.py": "", "README.md": "calc\n", "calc/__init__.py": "def add(a, b):\n    return a + b\n"}
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("tests/test_add%02d.py", i)] = fmt.Sprintf("import time\n\nimport calc\n\n\ndef test_add_%d():\n    time.sleep(0.02)\n    assert calc.add(%d, 1) == %d\n", i, i, i+1)
	}
	if err := writeTree(repo, files); err != nil {
		return err
	}
	steps := [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "add", "-A"}, {"git", "commit", "-qm", "base"}, {"git", "tdd", "start", "2"}}
	for _, args := range steps {
		if out, err := r.sh(repo, nil, args[0], args[1:]...); err != nil {
			return fmt.Errorf("%s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	out, err := r.sh(repo, nil, "git", "rev-parse", "main")
	if err != nil {
		return err
	}
	base := strings.TrimSpace(string(out))
	wt := repo + "-issue-2"
	red := map[string]string{"tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"}
	green := map[string]string{"calc/__init__.py": files["calc/__init__.py"] + "\n\ndef mul(a, b):\n    return a * b\n"}
	for _, step := range []struct {
		files map[string]string
		gate  string
	}{{red, "red"}, {green, "green"}} {
		if err := writeTree(wt, step.files); err != nil {
			return err
		}
		if out, err := r.sh(wt, nil, "git", "tdd", step.gate); err != nil {
			return fmt.Errorf("%s: %v %s", step.gate, err, out)
		}
	}
	for _, moved := range []bool{false, true} {
		what := "onto the base it started from"
		if moved {
			what = "onto a base that moved on"
			// the first merge undone, main gets a commit of its own
			if out, err := r.sh(repo, nil, "git", "reset", "-q", "--hard", base); err != nil {
				return fmt.Errorf("%v %s", err, out)
			}
			if err := writeTree(repo, map[string]string{"README.md": "calc, moved on\n"}); err != nil {
				return err
			}
			if out, err := r.sh(repo, nil, "git", "commit", "-qam", "main moves on"); err != nil {
				return fmt.Errorf("%v %s", err, out)
			}
		}
		if out, err := r.sh(repo, nil, "git", "merge", "-q", "--no-ff", "-m", "Merge #2: mul\n\nTDD-Issue: 2", "feat/issue-2"); err != nil {
			return fmt.Errorf("merge: %v %s", err, out)
		}
		r.pipe = true
		rng := base + "..main"
		t, err := r.measure(repo, [][]string{{"pytest", "-v", "--tb=short"}, {"git", "tdd", "verify", rng}, {"git", "tdd", "verify", rng, "--no-sandbox"}}, 0)
		r.pipe = false
		if err != nil {
			return err
		}
		bare, proof, unconfined := t[0].median(), t[1].median(), t[2].median()
		ratio := float64(proof) / float64(bare)
		fmt.Printf("reprove  %s: whole suite bare %v; re-proof %v: %.2f× (goal ≤ 1.3×) %s\n", what, round(bare), round(proof), ratio, verdict(ratio <= 1.3))
		fmt.Printf("         the sandbox: re-proof confined %v, with --no-sandbox %v: %v more, %.2f× bare unconfined\n",
			round(proof), round(unconfined), round(proof-unconfined), float64(unconfined)/float64(bare))
	}
	return nil
}

// benchStatus times status and list with 50 workflows in state.toml.
func benchStatus(r *runner, repo string) error {
	var b strings.Builder
	b.WriteString("version = 1\n")
	for i := 100; i < 150; i++ {
		fmt.Fprintf(&b, "\n[workflow.%d]\nissue = \"%d\"\nphase = \"red\"\nbranch = \"feat/issue-%d\"\nbase = \"main\"\nbase_commit = \"%s\"\nworktree = \"/tmp/x-%d\"\n[workflow.%d.red]\ncommit = \"%s\"\nfailing = [\"tests/test_mul.py::test_mul\"]\n",
			i, i, i, strings.Repeat("a", 40), i, i, strings.Repeat("b", 40))
	}
	path := filepath.Join(repo, ".git", "tdd", "state.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	t, err := r.measure(repo, [][]string{{"git", "tdd", "status", "125", "--json"}, {"git", "tdd", "list"}}, 0)
	if err != nil {
		return err
	}
	s, l := t[0].median(), t[1].median()
	fmt.Printf("status   50 workflows: git tdd status %v, git tdd list %v (goal < 30ms) %s\n", round(s), round(l), verdict(s < 30*time.Millisecond && l < 30*time.Millisecond))
	return nil
}

func writeTree(dir string, files map[string]string) error {
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchRun: git tdd run's own time per loop iteration (everything but the
// agent's and the tests' time) with a scripted agent, from its --json events:
// the run to the review, less every agent call and every test run, over its
// two iterations (tests, then code) (goal ≤ 100 ms).
func benchRun(r *runner) error {
	if _, err := exec.LookPath("pytest"); err != nil {
		fmt.Println("run      skipped: pytest is not installed")
		return nil
	}
	repo := filepath.Join(r.work, "run")
	agent := filepath.Join(r.work, "run-agent.py")
	answers := `["### FILE: tests/test_mul.py\n` + "```python\\nimport calc\\n\\n\\ndef test_mul():\\n    assert calc.mul(2, 3) == 6\\n```" + `\n",` +
		`"### FILE: calc/__init__.py\n` + "```python\\ndef add(a, b):\\n    return a + b\\n\\n\\ndef mul(a, b):\\n    return a * b\\n```" + `\n"]`
	script := "import json, os, sys\nsys.stdin.read()\nd = os.path.dirname(os.path.abspath(__file__))\np = os.path.join(d, 'run-count')\n" +
		"n = int(open(p).read()) if os.path.exists(p) else 0\nopen(p, 'w').write(str(n + 1))\n" +
		"a = json.load(open(os.path.join(d, 'run-answers.json')))\nsys.stdout.write(a[n % len(a)])\n"
	files := map[string]string{"conftest.py": "", "calc/__init__.py": "def add(a, b):\n    return a + b\n", "docs/lld.md": "# mul\n",
		"tests/test_add.py": "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"}
	if err := writeTree(repo, files); err != nil {
		return err
	}
	if err := writeTree(r.work, map[string]string{"run-agent.py": script, "run-answers.json": answers}); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "base"},
		{"config", "--add", "tdd.agent.command", "python3"}, {"config", "--add", "tdd.agent.command", agent}} {
		if _, err := r.sh(repo, nil, "git", args...); err != nil {
			return err
		}
	}
	var overheads []time.Duration
	for i := 0; i < r.runs; i++ {
		issue := fmt.Sprint(100 + i)
		out, _ := r.sh(repo, nil, "git", "tdd", "run", issue, "--lld", "docs/lld.md", "--auto", "--json")
		var total, agents, tests int64
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var ev struct {
				Event     string `json:"event"`
				ElapsedMS int64  `json:"elapsed_ms"`
				AgentMS   int64  `json:"agent_ms"`
				TestsMS   int64  `json:"tests_ms"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil {
				return fmt.Errorf("run --json printed %q", line)
			}
			total = max(total, ev.ElapsedMS)
			agents += ev.AgentMS
			tests += ev.TestsMS
		}
		overheads = append(overheads, time.Duration(total-agents-tests)*time.Millisecond/2)
	}
	o := medianOf(overheads)
	fmt.Printf("run      git tdd run's own time per loop iteration: %v (goal ≤ 100ms) %s\n", round(o), verdict(o <= 100*time.Millisecond))
	return nil
}
