package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// benchPatch: git tdd patch with 100 blocks into a 20,000-line file (goal
// < 50 ms), next to the start of git tdd itself (--version) as the floor;
// then the same change as 100 hunks of a unified diff. The
// file is reset before each run, untimed, so that every run applies all 100.
// The blocks rewrite 300 lines, more than [write] approval_lines: a human would
// approve them on the terminal; the unattended --force path is timed, with the
// diff the gate measures them by.
func benchPatch(r *runner) error {
	dir := filepath.Join(r.work, "patch")
	var file, blocks strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&file, "    value_%05d = compute(%d, scale=%d)\n", i, i, i%7)
	}
	for k := 0; k < 100; k++ {
		i := 100 + k*198 // spread over the file, none overlapping
		fmt.Fprintf(&blocks, "### CHANGE %d: scale %d\nFIND:\n```\n", k+1, i)
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&blocks, "    value_%05d = compute(%d, scale=%d)\n", j, j, j%7)
		}
		fmt.Fprintf(&blocks, "```\nREPLACE WITH:\n```\n")
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&blocks, "    value_%05d = compute(%d, scale=%d)  # rescaled\n", j, j, j%7+1)
		}
		blocks.WriteString("```\n\n")
	}
	// the engine is timed on a text file; the same patch into a .py file adds
	// the syntax check, Python's own parser, whose cost grows with the file
	if err := writeTree(dir, map[string]string{"big.txt": file.String(), "big.py": file.String(), "blocks.txt": blocks.String()}); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "big.txt", "big.py"}, {"commit", "-qm", "base"}} {
		if _, err := r.sh(dir, nil, "git", args...); err != nil {
			return err
		}
	}
	// Each round resets the file (untimed), so that every timed run applies all
	// 100 blocks; the first round only warms the caches.
	var floor, patch, py []time.Duration
	for i := -1; i < r.runs; i++ {
		if _, err := r.sh(dir, nil, "git", "checkout", "-q", "--", "big.txt", "big.py"); err != nil {
			return err
		}
		f, err := r.time(dir, "git", "tdd", "--version")
		if err != nil {
			return err
		}
		p, err := r.time(dir, "git", "tdd", "patch", "--force", "--from", "blocks.txt", "big.txt")
		if err != nil {
			return err
		}
		q, err := r.time(dir, "git", "tdd", "patch", "--force", "--from", "blocks.txt", "big.py")
		if err != nil {
			return err
		}
		if i >= 0 {
			floor, patch, py = append(floor, f), append(patch, p), append(py, q)
		}
	}
	out, err := r.sh(dir, nil, "git", "diff", "--numstat", "--", "big.txt")
	if err != nil || !strings.HasPrefix(string(out), "300\t300\t") {
		return fmt.Errorf("the patch did not change its 300 lines: %q %v", out, err)
	}
	p := medianOf(patch)
	fmt.Printf("patch    100 blocks into 20,000 lines: %v (goal < 50ms), git tdd --version %v %s\n",
		round(p), round(medianOf(floor)), verdict(p < 50*time.Millisecond))
	fmt.Printf("patch    the same into a 20,000-line .py, with Python's own syntax check: %v\n", round(medianOf(py)))
	return benchPatchDiff(r, dir)
}

// benchPatchDiff: the same change as git diff prints it, 100 hunks of a
// unified diff, into the same 20,000-line file (goal < 50 ms): each hunk is
// matched by its content, as a block is.
func benchPatchDiff(r *runner, dir string) error {
	d, err := r.sh(dir, nil, "git", "diff", "--", "big.txt")
	if err != nil {
		return err
	}
	if n := strings.Count(string(d), "\n@@ "); n != 100 {
		return fmt.Errorf("the diff has %d hunks, not 100", n)
	}
	if err := writeTree(dir, map[string]string{"hunks.diff": string(d)}); err != nil {
		return err
	}
	var times []time.Duration
	for i := -1; i < r.runs; i++ {
		if _, err := r.sh(dir, nil, "git", "checkout", "-q", "--", "big.txt"); err != nil {
			return err
		}
		t, err := r.time(dir, "git", "tdd", "patch", "--force", "--from", "hunks.diff")
		if err != nil {
			return err
		}
		if i >= 0 {
			times = append(times, t)
		}
	}
	out, err := r.sh(dir, nil, "git", "diff", "--numstat", "--", "big.txt")
	if err != nil || !strings.HasPrefix(string(out), "300\t300\t") {
		return fmt.Errorf("the diff did not change its 300 lines: %q %v", out, err)
	}
	p := medianOf(times)
	fmt.Printf("patch    100 hunks of a unified diff into 20,000 lines: %v (goal < 50ms) %s\n", round(p), verdict(p < 50*time.Millisecond))
	return nil
}

// benchContext: git tdd context over 200 files of 50 KB (10 MB; over the token
// budget, so refused after every file is read, checked and counted). The
// goal is only to report the time.
func benchContext(r *runner) error {
	dir := filepath.Join(r.work, "context")
	files := map[string]string{}
	var paths []string
	for i := 0; i < 200; i++ {
		p := fmt.Sprintf("src/m%03d.py", i)
		var b strings.Builder
		for j := 0; b.Len() < 50<<10; j++ {
			fmt.Fprintf(&b, "def handler_%d_%d(request, limit=%d):\n    return request.get(%q, limit)\n\n", i, j, j, fmt.Sprintf("key%d", j))
		}
		files[p], paths = b.String()[:50<<10], append(paths, p)
	}
	if err := writeTree(dir, files); err != nil {
		return err
	}
	if _, err := r.sh(dir, nil, "git", "init", "-q", "-b", "main"); err != nil {
		return err
	}
	cat := append([]string{"cat"}, paths...)
	ctx := append([]string{filepath.Join(r.bin, "git-tdd"), "context"}, paths...) // ours, not git's, for the memory figure
	t, err := r.measure(dir, [][]string{cat, ctx}, 0, 2)
	if err != nil {
		return err
	}
	c := t[1].median()
	// the budget is the memory the command takes, its private memory: its
	// resident total also counts the binary's pages, as many as the page
	// cache holds (37 to 55 MB of git-tdd's 100 MB), whatever the input
	fmt.Printf("context  200 files of 50 KB (10 MB, every token counted): %v (%.1f MB/s), cat %v; peak private memory %d MB (goal < 64 MB) %s; resident with the binary's pages %d MB\n",
		round(c), 10.0/c.Seconds(), round(t[0].median()), t[1].anon>>10, verdict(t[1].anon>>10 < 64), t[1].hwm>>10)
	return nil
}

// time runs one command and returns how long it took.
func (r *runner) time(dir, name string, args ...string) (time.Duration, error) {
	start := time.Now()
	_, err := r.sh(dir, nil, name, args...)
	return time.Since(start), err
}
