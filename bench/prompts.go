package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/tokens"
)

// benchPrompts measures what git tdd run sends a model on the walk-through
// of issue 23 (-replay DIR, a clone of more-itertools): a new function,
// chunked_sum, in more_itertools/more.py (172 KB, over the 100 KB a file may
// send). A scripted agent writes the test at N1 and answers N3 with FIND
// blocks a model would write: the lines of __all__ and of chunked it edits.
// Printed: each prompt's tokens, what part of each file it sends, and whether
// every FIND block is in the N3 prompt as it is in the file, which is what a
// model needs to write one that matches.
func benchPrompts(r *runner) error {
	if r.replay == "" {
		fmt.Println("prompts  skipped: no -replay DIR (a clone of github.com/more-itertools/more-itertools)")
		return nil
	}
	repo := filepath.Join(r.work, "prompts")
	if out, err := r.sh(r.work, nil, "git", "clone", "-q", r.replay, repo); err != nil {
		return fmt.Errorf("%v %s", err, out)
	}
	more, err := os.ReadFile(filepath.Join(repo, "more_itertools", "more.py"))
	if err != nil {
		return err
	}
	finds, answer, err := chunkedSumAnswer(string(more))
	if err != nil {
		return err
	}
	agent := filepath.Join(r.work, "prompts-agent")
	src, err := os.ReadFile(filepath.Join("testdata", "agent", "fake_agent.py"))
	if err != nil {
		return err
	}
	answers, _ := json.Marshal([]string{chunkedSumTest, answer})
	files := map[string]string{
		filepath.Join(agent, "agent.py"):     string(src),
		filepath.Join(agent, "answers.json"): string(answers),
		filepath.Join(repo, ".git-tdd.toml"): "[test]\ncommand = [\"pytest\", \"tests/test_chunked_sum.py\"]\ntimeout = \"900s\"\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			return err
		}
	}
	steps := [][]string{
		{"git", "add", ".git-tdd.toml"}, {"git", "commit", "-qm", "git tdd: the test command"},
		{"git", "config", "--add", "tdd.agent.command", "python3"}, {"git", "config", "--add", "tdd.agent.command", filepath.Join(agent, "agent.py")},
		{"git", "config", "--global", "--replace-all", "tdd.sandbox.write", agent},
	}
	for _, args := range steps {
		if out, err := r.sh(repo, nil, args[0], args[1:]...); err != nil {
			return fmt.Errorf("%v %s", err, out)
		}
	}
	// the design is not committed: run reads it where the human wrote it
	if err := os.MkdirAll(filepath.Join(repo, "docs", "lld"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, "docs", "lld", "1.md"), []byte(chunkedSumDesign), 0o644); err != nil {
		return err
	}
	c := r.cmd(repo, "git", "tdd", "run", "1", "--lld", "docs/lld/1.md", "--auto")
	out, _ := c.CombinedOutput()
	reached := "reached green"
	if code := c.ProcessState.ExitCode(); code != 3 {
		reached = fmt.Sprintf("STOPPED (exit %d, not green)", code)
	}
	var sending []string
	for _, line := range strings.Split(string(out), "\n") {
		if _, s, ok := strings.Cut(line, ": sending "); ok {
			sending = append(sending, s)
		}
	}
	n1, err1 := os.ReadFile(filepath.Join(agent, "calls", "001.txt"))
	n3, err3 := os.ReadFile(filepath.Join(agent, "calls", "002.txt"))
	if err1 != nil || err3 != nil || len(sending) < 2 {
		return fmt.Errorf("git tdd run made no N1 and N3 prompts:\n%s", out)
	}
	in := 0
	for _, f := range finds {
		if strings.Contains(string(n3), "\n"+f+"\n") {
			in++
		}
	}
	lines := 0
	for _, f := range finds {
		lines += strings.Count(f, "\n") + 1
	}
	fmt.Printf("prompts  more-itertools, a new function in more.py (%d bytes): N1 scaffold %s tokens, sends %s\n", len(more), thousands(tokens.Count(string(n1))), sending[0])
	fmt.Printf("         N3 implement %s tokens (budget 200k) %s, sends %s\n", thousands(tokens.Count(string(n3))), verdict(tokens.Count(string(n3)) <= 200_000), sending[1])
	fmt.Printf("         the answer's FIND blocks in the N3 prompt as in the file: %d of %d (%d lines) %s; the run %s\n", in, len(finds), lines, verdict(in == len(finds)), reached)
	if in != len(finds) || !strings.HasPrefix(reached, "reached") {
		return fmt.Errorf("a model could not have written the answer from the prompt:\n%s", out)
	}
	return nil
}

func thousands(n int) string { return fmt.Sprintf("%.1fk", float64(n)/1000) }

const chunkedSumDesign = "# chunked_sum\n\nAdd `more_itertools.chunked_sum(iterable, n)` to more.py: the sum of each chunk of `chunked(iterable, n)`, exported in `__all__`.\n"

const chunkedSumTest = "### FILE: tests/test_chunked_sum.py\n```python\nfrom unittest import TestCase\n\nimport more_itertools as mi\n\n\n" +
	"class ChunkedSumTests(TestCase):\n    def test_even(self):\n        self.assertEqual(list(mi.chunked_sum([1, 2, 3, 4], 2)), [3, 7])\n\n" +
	"    def test_short_last(self):\n        self.assertEqual(list(mi.chunked_sum([1, 2, 3], 2)), [3, 3])\n```\n"

// chunkedSumAnswer is the N3 answer a model would write, from more.py as it
// is: chunked_sum into __all__ after chunked_even, and after chunked's
// definition. finds are its FIND blocks.
func chunkedSumAnswer(more string) (finds []string, answer string, err error) {
	lines := strings.Split(more, "\n")
	all, def := -1, -1
	for i, l := range lines {
		if l == "    'chunked_even'," && all < 0 {
			all = i
		}
		if strings.HasPrefix(l, "def chunked(") {
			def = i
		}
	}
	if all < 1 || def < 0 {
		return nil, "", fmt.Errorf("more.py has no 'chunked_even' in __all__ or no def chunked")
	}
	end := def + 1
	for end < len(lines) && (lines[end] == "" || strings.HasPrefix(lines[end], " ")) {
		end++
	}
	for lines[end-1] == "" {
		end--
	}
	exports := strings.Join(lines[all-1:all+1], "\n")
	chunked := strings.Join(lines[def:end], "\n")
	finds = []string{exports, chunked}
	fence := "```"
	answer = "### FILE: more_itertools/more.py\n### CHANGE 1: export chunked_sum\nFIND:\n" + fence + "\n" + exports + "\n" + fence + "\nREPLACE WITH:\n" + fence + "\n" + exports + "\n    'chunked_sum',\n" + fence + "\n" +
		"### CHANGE 2: chunked_sum after chunked\nFIND:\n" + fence + "\n" + chunked + "\n" + fence + "\nREPLACE WITH:\n" + fence + "\n" + chunked +
		"\n\n\ndef chunked_sum(iterable, n):\n    \"\"\"Yield the sum of each chunk of *iterable* of length *n*.\"\"\"\n    for chunk in chunked(iterable, n):\n        yield sum(chunk)\n" + fence + "\n"
	return finds, answer, nil
}
