package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// benchTDD: the added time of git tdd red and green over the same pytest
// command run bare on a small real suite (goal ≤ 50 ms), and git tdd status with
// 50 workflows (goal < 30 ms).
func benchTDD(r *runner) error {
	if _, err := exec.LookPath("pytest"); err != nil {
		fmt.Println("tdd      skipped: pytest is not installed")
		return nil
	}
	repo := filepath.Join(r.work, "tdd")
	files := map[string]string{"conftest.py": "", "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return 0\n"}
	for i := 0; i < 20; i++ {
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
	t, err := r.measure(wt, [][]string{{"pytest", "-v", "--tb=short"}, {"git", "tdd", "red"}}, 0, 1)
	r.pipe = false
	if err != nil {
		return err
	}
	bare, red := t[0].median(), t[1].median()
	impl := "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
	if err := os.WriteFile(filepath.Join(wt, "calc", "__init__.py"), []byte(impl), 0o644); err != nil {
		return err
	}
	var greens []time.Duration
	for i := 0; i < r.runs+1; i++ {
		// a refactoring each round, so that every green commits
		if err := os.WriteFile(filepath.Join(wt, "calc", "__init__.py"), []byte(fmt.Sprintf("%s\n# round %d\n", impl, i)), 0o644); err != nil {
			return err
		}
		start := time.Now()
		if out, err := r.sh(wt, nil, "git", "tdd", "green"); err != nil {
			return fmt.Errorf("green: %v %s", err, out)
		}
		if i > 0 {
			greens = append(greens, time.Since(start))
		}
	}
	green := medianOf(greens)
	fmt.Printf("tdd      pytest bare %v; git tdd red %v (added %v), git tdd green %v (added %v) (goal ≤ 50ms) %s\n",
		round(bare), round(red), round(red-bare), round(green), round(green-bare), verdict(red-bare <= 50*time.Millisecond && green-bare <= 50*time.Millisecond))
	return benchStatus(r, repo)
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
