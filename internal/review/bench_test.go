package review

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/term"
)

// corpusLines reads the lines of the files in GIT_TDD_BENCH_CORPUS, as
// term's benchmarks do (the 200 largest Python files of pallets/click).
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

// BenchmarkCountAdded reads every line of the corpus as an added line, as
// the analysis does: invisible characters and names that read as others.
// Beside term's BenchmarkCountInvisible, it must cost nothing measurable
// more on code that is ASCII for the most part.
func BenchmarkCountAdded(b *testing.B) {
	lines, size := corpusLines(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		var t gitx.Tally
		for i, l := range lines {
			countAdded(l, int64(i), &t)
		}
	}
}

// BenchmarkCountInvisibleOnly is what the analysis read before names were
// looked at, for comparison.
func BenchmarkCountInvisibleOnly(b *testing.B) {
	lines, size := corpusLines(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		var n int
		for _, l := range lines {
			n += term.CountInvisible(l)
		}
	}
}
