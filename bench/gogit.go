package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// benchGoGit runs gitx's go-git-versus-git benchmarks (each read cold, as in a
// hook, on a packed repository of 2,000 commits) and prints each pair as a
// ratio, with the reader the code uses (DESIGN §2: go-git where it is faster).
func benchGoGit(r *runner) error {
	c := exec.Command("go", "test", "-run", "^$", "-bench", "InProcess|GoGit|Git$", "-benchtime", "100x", "./internal/gitx")
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go test -bench: %v\n%s", err, out)
	}
	ns := map[string]float64{}
	for _, m := range regexp.MustCompile(`(?m)^Benchmark(\w+?)-\d+\s+\d+\s+([\d.]+) ns/op`).FindAllStringSubmatch(string(out), -1) {
		ns[m[1]], _ = strconv.ParseFloat(m[2], 64)
	}
	pairs := []struct{ what, ours, theirs, uses string }{
		{"HEAD and its branch (packed refs)", "HeadInProcess", "HeadGit", "go-git"},
		{"3 loose commits (the hooks' new commits)", "CommitsLooseInProcess", "CommitsLooseGit", "go-git"},
		{"3 packed commits", "CommitsPackedGoGit", "CommitsPackedGit", "git"},
		{"reachability over 2,000 commits", "IsAncestorGoGit", "IsAncestorGit", "git"},
		{"verify's walk of 1,000 commits", "VerifyWalkGoGit", "VerifyWalkGit", "git"},
	}
	for _, p := range pairs {
		g, x := ns[p.ours], ns[p.theirs]
		if g == 0 || x == 0 {
			return fmt.Errorf("benchmark %s or %s missing from:\n%s", p.ours, p.theirs, out)
		}
		faster := "go-git"
		if x < g {
			faster = "git"
		}
		note := "ok"
		if faster != p.uses {
			note = "CHECK: the code uses " + p.uses
		}
		fmt.Printf("gogit    %-42s go-git %8s, git %8s: go-git/git %.2f×, uses %s %s\n", p.what, ms(g), ms(x), g/x, p.uses, note)
	}
	return nil
}

func ms(ns float64) string {
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(ns/1e6, 'f', 2, 64), "0"), ".") + "ms"
}
