//go:build ignore

// Build writes the corpus of TestCorpus: for each file, its content before the
// last N first-parent commits that changed it, and those commits' own diffs,
// as git prints them (full blob ids on the index line, so that the test can
// check every version it rebuilds), in one gzipped txtar.
//
//	go run build.go -git /path/to/more-itertools.git -o more-itertools.txtar.gz -n 40 \
//		more_itertools/recipes.py tests/test_recipes.py more_itertools/more.py
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

func main() {
	gitDir := flag.String("git", "", "the repository's git directory")
	out := flag.String("o", "", "the gzipped txtar to write")
	n := flag.Int("n", 40, "commits per file")
	flag.Parse()
	head := strings.TrimSpace(git(*gitDir, "rev-parse", "HEAD"))
	ar := &txtar.Archive{Comment: []byte(fmt.Sprintf("more-itertools (https://github.com/more-itertools/more-itertools) at %s, under its LICENSE\n", head))}
	ar.Files = append(ar.Files, txtar.File{Name: "LICENSE", Data: []byte(git(*gitDir, "show", head+":LICENSE"))})
	for _, path := range flag.Args() {
		commits := strings.Fields(git(*gitDir, "log", "--first-parent", "--format=%H", "-n", fmt.Sprint(*n), head, "--", path))
		slices.Reverse(commits)
		base := git(*gitDir, "show", commits[0]+"^1:"+path)
		ar.Files = append(ar.Files, txtar.File{Name: "base/" + path, Data: []byte(base)})
		for i, c := range commits {
			d := git(*gitDir, "diff", "--no-color", "--no-ext-diff", "--no-renames", "--full-index", "-U3", c+"^1", c, "--", path)
			ar.Files = append(ar.Files, txtar.File{Name: fmt.Sprintf("diff/%s/%03d-%.10s", path, i+1, c), Data: []byte(d)})
		}
	}
	data := txtar.Format(ar)
	if back := txtar.Parse(data); len(back.Files) != len(ar.Files) {
		panic("a file's content reads as a txtar marker")
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(data)
	w.Close()
	if err := os.WriteFile(*out, z.Bytes(), 0o644); err != nil {
		panic(err)
	}
	fmt.Printf("%d files, %d bytes, %d gzipped\n", len(ar.Files), len(data), z.Len())
}

func git(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"--git-dir", dir, "-c", "core.quotePath=false"}, args...)...).Output()
	if err != nil {
		panic(fmt.Sprint(args, err))
	}
	return string(out)
}
