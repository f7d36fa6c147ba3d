package term

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// corpusLines reads the lines of every file in the directory that
// GIT_TDD_BENCH_CORPUS names: for issue 20, the 200 largest Python files of
// pallets/click (its history's largest distinct versions, as click has fewer
// at its tip), written out with git show; the benchmarks skip without it.
//
//	git --git-dir CLICK rev-list --all --objects | awk '$2 ~ /\.py$/' |
//	  git --git-dir CLICK cat-file --batch-check='%(objectname) %(objectsize) %(rest)' |
//	  sort -k2 -n -r | head -200   # then git show each id into the directory
func corpusLines(b *testing.B) (lines [][]byte, size int64) {
	dir := os.Getenv("GIT_TDD_BENCH_CORPUS")
	if dir == "" {
		b.Skip("GIT_TDD_BENCH_CORPUS is not set")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		b.Skipf("no corpus in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	return lines, size
}

// BenchmarkLine renders every line of the corpus as the review does: it
// must cost nothing measurable on code that is ASCII for the most part.
func BenchmarkLine(b *testing.B) {
	lines, size := corpusLines(b)
	strs := make([]string, len(lines))
	for i, l := range lines {
		strs[i] = string(l)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range strs {
			_ = Line(s, 0)
		}
	}
}

// BenchmarkCountInvisible counts as the analysis does, over every line.
func BenchmarkCountInvisible(b *testing.B) {
	lines, size := corpusLines(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			_ = CountInvisible(l)
		}
	}
}

// BenchmarkFold folds every line at 80 columns, as the review on a terminal.
func BenchmarkFold(b *testing.B) {
	lines, size := corpusLines(b)
	strs := make([]string, len(lines))
	for i, l := range lines {
		strs[i] = Line(string(l), 0)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range strs {
			_ = Fold(s, 80, 0)
		}
	}
}
