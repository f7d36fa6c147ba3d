package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// benchReport: git diffgate report --json on 5,000 staged files in a 50,000-file
// repository, against git diff --cached --numstat on the same index (goal ≤ 1.0).
func benchReport(r *runner) error {
	const files, changed = 50000, 5000
	paths := make([]string, files)
	content := map[string][]byte{}
	for i := range paths {
		paths[i] = fmt.Sprintf("pkg%03d/mod%03d/file%05d.py", i%100, (i/100)%5, i)
		content[paths[i]] = pyFile(i, 0)
	}
	dir, err := r.newRepo("report", func(f *fastImport) {
		f.commit("refs/heads/main", "base", "", content, paths)
		next := map[string][]byte{}
		var order []string
		for i := 0; i < files; i += files / changed {
			next[paths[i]] = pyFile(i, 1+i%7)
			order = append(order, paths[i])
		}
		f.commit("refs/heads/next", "changes", "refs/heads/main", next, order)
	})
	if err != nil {
		return err
	}
	if err := r.stage(dir, "main", "next"); err != nil {
		return err
	}
	base, err := r.sh(dir, nil, "git", "rev-parse", "HEAD^{tree}")
	if err != nil {
		return err
	}
	tree, err := r.sh(dir, nil, "git", "write-tree")
	if err != nil {
		return err
	}
	// the floor: the one git command report waits for (its whole-file patch,
	// which carries the old line counts and the texts the definitions need),
	// with nothing reading it
	floor := []string{"git", "-c", "core.commitGraph=false", "diff-tree", "-z", "--raw", "--no-abbrev",
		"-r", "-M", "-C", "--no-relative", "-p", "--full-index", "--binary", "--no-color", "--no-ext-diff",
		"--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--unified=2147483647",
		strings.TrimSpace(string(base)), strings.TrimSpace(string(tree))}
	t, err := r.measure(dir, [][]string{
		{"git", "diff", "--cached", "--numstat"},
		{"git", "diffgate", "report", "--json"},
		floor,
	}, 0, 1)
	if err != nil {
		return err
	}
	ratio := float64(t[1].median()) / float64(t[0].median())
	fmt.Printf("report   %d staged of %d files: git diffgate report --json %v, git diff --cached --numstat %v: ratio %.2f (goal ≤ 1.0; ≤ 1.2 with the definitions, which are on) %s\n",
		changed, files, round(t[1].median()), round(t[0].median()), ratio, verdict(ratio <= 1.0))
	fmt.Printf("report   floor: the diff-tree it runs, its output discarded, %v: ratio %.2f to numstat on %d CPUs\n",
		round(t[2].median()), float64(t[2].median())/float64(t[0].median()), runtime.NumCPU())
	return nil
}

// benchMemory: peak memory of report on a 200 MB staged diff (goal < 64 MB).
func benchMemory(r *runner) error {
	big := func(n, seed int) []byte {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "line %d of a large file, version %d, padded to look like code: x = %d\n", i, seed, i*seed)
		}
		return []byte(b.String())
	}
	// one 60 MB file and eight 5 MB files, each rewritten: about 200 MB of patch
	sizes := map[string]int{"huge.txt": 60 << 20}
	for i := 0; i < 8; i++ {
		sizes[fmt.Sprintf("big%d.txt", i)] = 5 << 20
	}
	var order []string
	for p := range sizes {
		order = append(order, p)
	}
	dir, err := r.newRepo("memory", func(f *fastImport) {
		v1, v2 := map[string][]byte{}, map[string][]byte{}
		for p, n := range sizes {
			v1[p], v2[p] = big(n, 1), big(n, 2)
		}
		f.commit("refs/heads/main", "base", "", v1, order)
		f.commit("refs/heads/next", "rewrite", "refs/heads/main", v2, order)
	})
	if err != nil {
		return err
	}
	if err := r.stage(dir, "main", "next"); err != nil {
		return err
	}
	patch, err := r.sh(dir, nil, "git", "diff", "--cached", "--no-color", "--no-ext-diff")
	if err != nil {
		return err
	}
	save := r.runs
	r.runs = 3
	// the binary itself, not git running it: the peak is its own
	t, err := r.measure(dir, [][]string{{filepath.Join(r.bin, "git-diffgate"), "report", "--json"}}, 1)
	r.runs = save
	if err != nil {
		return err
	}
	mb := float64(t[0].hwm) / 1024
	fmt.Printf("memory   report on a %.0f MB staged diff: peak RSS of git-diffgate %.1f MB (goal < 64 MB) %s; time %v\n",
		float64(len(patch))/(1<<20), mb, verdict(mb < 64), round(t[0].median()))
	return nil
}

func pyFile(i, variant int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Module %d.\"\"\"\n\nimport os\n\n\n", i)
	for j := 0; j < 6; j++ {
		v := ""
		if variant > 0 && j < variant {
			v = fmt.Sprintf(" + %d", variant)
		}
		fmt.Fprintf(&b, "def f%d_%d(x):\n    return x * %d%s\n\n\n", i, j, j, v)
	}
	return []byte(b.String())
}

func round(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "OVER BUDGET"
}
