package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// replayCommits are bug-fix commits of more-itertools whose tests fail on
// their parent: each is replayed as a red whose [test] command names the test
// file the commit changes, as the project itself runs it (pytest tests/test_more.py).
var replayCommits = []struct{ commit, file string }{
	{"f51a53bfd2fe9504063a33ef5f4a73e30d82d0e2", "tests/test_more.py"},    // fix: handle empty interleave_evenly input
	{"edb3346f835ca917efbfda5e2d6664ab952da369", "tests/test_more.py"},    // Fix empty ranges in numeric_range.__reversed__
	{"71b46b06fb48abcd2f7a26d74c148a650d340386", "tests/test_more.py"},    // Issue #1057: Raise exception for invalid size in windowed()
	{"073d23421b60e05a99872e7b174902f4aa151f31", "tests/test_more.py"},    // Fix support for iterators using "repeat"
	{"adeda34bd11ff636f5f19238cf422a73e1455483", "tests/test_more.py"},    // Fix bug for negative inputs to exactly_n()
	{"cf186b5de4797602fef76c3391da2d110b88a954", "tests/test_more.py"},    // Fix product_index() with iterator input
	{"cca32949f12d473fd823e37a5530c30d2faa1332", "tests/test_more.py"},    // fix last() when __reversed__ is None
	{"b0aa91efbb452eeb8ffa0447047519c6e84d5292", "tests/test_recipes.py"}, // Fix random_product() as well
	{"d992be0de9383ddcaae3a24866a2d96b52132b07", "tests/test_more.py"},    // Fix stability in running_min and running_max
	{"be5793a55f58ee29521d8cbc9f14019f5833454e", "tests/test_more.py"},    // Two fixes for repeat with iterator arguments
}

// benchReplay replays real bug-fix commits (-replay DIR: a clone of
// https://github.com/more-itertools/more-itertools): on each commit's parent,
// with [test] command = ["pytest", FILE] committed, a workflow takes the
// commit's test changes and runs git tdd red. Red must record exactly the ids
// that plain pytest of the same command reports failing, each once, and cost
// at most 1.2× that pytest (DESIGN §9's budget of a scoped red).
func benchReplay(r *runner) error {
	if r.replay == "" {
		fmt.Println("replay   skipped: no -replay DIR (a clone of github.com/more-itertools/more-itertools)")
		return nil
	}
	// a full test file takes seconds: three timed runs of each
	saved := r.runs
	r.runs = min(r.runs, 3)
	defer func() { r.runs = saved }()
	var ratios, cpus []float64
	var wrong []string
	for i, c := range replayCommits {
		t, plain, recorded, err := replayOne(r, fmt.Sprintf("replay-%02d", i), c.commit, c.file)
		if err != nil {
			return fmt.Errorf("%.10s: %v", c.commit, err)
		}
		bare, red := t[0].median(), t[1].median()
		ratio := float64(red) / float64(bare)
		cpu := float64(t[1].medianCPU()) / float64(t[0].medianCPU())
		ratios, cpus = append(ratios, ratio), append(cpus, cpu)
		same := "the same failing ids as plain pytest, each once"
		if strings.Join(recorded, " ") != strings.Join(plain, " ") {
			same = fmt.Sprintf("RECORDED %q, plain pytest fails %q", recorded, plain)
			wrong = append(wrong, c.commit[:10])
		}
		fmt.Printf("replay   %.10s pytest %s: bare %v, git tdd red %v: %.2f× (processor time %.2f×); %s\n", c.commit, c.file, round(bare), round(red), ratio, cpu, same)
	}
	fmt.Printf("         %d bug-fixes of more-itertools: red %.2f–%.2f× bare pytest (goal ≤ 1.2×) %s, processor time %.2f–%.2f×; ids as plain pytest's in %d of %d %s\n",
		len(ratios), slices.Min(ratios), slices.Max(ratios), verdict(slices.Max(ratios) <= 1.2), slices.Min(cpus), slices.Max(cpus), len(ratios)-len(wrong), len(ratios), verdict(len(wrong) == 0))
	if len(wrong) > 0 {
		return fmt.Errorf("red recorded other ids than plain pytest's at %s", strings.Join(wrong, ", "))
	}
	return nil
}

// replayOne replays one commit: the timings of bare pytest and of git tdd
// red (in that order), the ids plain pytest reports failing, and those red recorded, in order.
func replayOne(r *runner, name, commit, file string) (t []timing, plain, recorded []string, err error) {
	repo := filepath.Join(r.work, name)
	command := []string{"pytest", file}
	config := fmt.Sprintf("[test]\ncommand = [\"pytest\", %q]\ntimeout = \"900s\"\n", file)
	steps := [][]string{{"git", "clone", "-q", "--no-checkout", r.replay, repo}, {"git", "checkout", "-q", "-B", "main", commit + "^"}}
	for i, args := range steps {
		dir := repo
		if i == 0 {
			dir = r.work
		}
		if out, err := r.sh(dir, nil, args[0], args[1:]...); err != nil {
			return nil, nil, nil, fmt.Errorf("%v %s", err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git-tdd.toml"), []byte(config), 0o644); err != nil {
		return nil, nil, nil, err
	}
	for _, args := range [][]string{{"git", "add", ".git-tdd.toml"}, {"git", "commit", "-qm", "git tdd: the project's test command"}} {
		if out, err := r.sh(repo, nil, args[0], args[1:]...); err != nil {
			return nil, nil, nil, fmt.Errorf("%v %s", err, out)
		}
	}
	out, err := r.sh(repo, nil, "git", "tdd", "start", "1")
	if err != nil {
		return nil, nil, nil, err
	}
	wt := strings.TrimSpace(string(out))
	if out, err := r.sh(wt, nil, "git", "checkout", "-q", commit, "--", "tests"); err != nil {
		return nil, nil, nil, fmt.Errorf("%v %s", err, out)
	}
	// the failing ids, as pytest's short summary names them
	summary, _ := r.cmd(wt, "pytest", "-rf", "-p", "no:cacheprovider", file).Output()
	for _, line := range strings.Split(string(summary), "\n") {
		if rest, ok := strings.CutPrefix(line, "FAILED "); ok {
			id, _, _ := strings.Cut(rest, " - ")
			plain = append(plain, strings.TrimSpace(id))
		}
	}
	slices.Sort(plain)
	r.pipe = true
	t, err = r.measure(wt, [][]string{command, {"git", "tdd", "red"}}, 0, 1)
	r.pipe = false
	if err != nil {
		return nil, nil, nil, err
	}
	trailers, err := r.sh(wt, nil, "git", "log", "-1", "--format=%(trailers:key=TDD-Failing,valueonly)")
	if err != nil {
		return nil, nil, nil, err
	}
	return t, plain, strings.Fields(string(trailers)), nil
}
