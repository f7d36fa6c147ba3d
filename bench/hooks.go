package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/git-tdd/git-tdd/internal/ttydriver"
)

// benchHooks: the added time of a commit whose index is already approved, with
// every hook installed with --strict, over a commit with an empty hook (goal ≤ 15
// ms), median of 20.
func benchHooks(r *runner) error {
	const rounds = 20
	mk := func(name string) (string, error) {
		dir := filepath.Join(r.work, name)
		files := map[string][]byte{}
		var order []string
		for i := 0; i < 2000; i++ {
			p := fmt.Sprintf("src/m%02d/f%04d.py", i%40, i)
			files[p], order = pyFile(i, 0), append(order, p)
		}
		if _, err := r.newRepo(name, func(f *fastImport) { f.commit("refs/heads/main", "base", "", files, order) }); err != nil {
			return "", err
		}
		_, err := r.sh(dir, nil, "git", "checkout", "-q", "-f", "main")
		return dir, err
	}
	gated, err := mk("hooks-gated")
	if err != nil {
		return err
	}
	plain, err := mk("hooks-plain")
	if err != nil {
		return err
	}
	floor, err := mk("hooks-floor")
	if err != nil {
		return err
	}
	if _, err := r.sh(gated, nil, "git", "diffgate", "install", "--strict"); err != nil {
		return err
	}
	empty := filepath.Join(plain, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(empty, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return err
	}
	// The floor: the same hook invocations a --strict commit makes, each only
	// starting git-diffgate (which prints its version).
	for _, h := range []string{"prepare-commit-msg", "reference-transaction"} {
		script := "#!/bin/sh\nexec git-diffgate --version >/dev/null\n"
		if err := os.WriteFile(filepath.Join(floor, ".git", "hooks", h), []byte(script), 0o755); err != nil {
			return err
		}
	}
	var withGate, withEmpty, withFloor []time.Duration
	for i := 0; i < rounds+1; i++ { // the first round warms up
		for _, dir := range []string{gated, plain, floor} {
			path := filepath.Join(dir, "src/m00/f0000.py")
			if err := os.WriteFile(path, pyFile(0, 1+i), 0o644); err != nil {
				return err
			}
			if _, err := r.sh(dir, nil, "git", "add", "src/m00/f0000.py"); err != nil {
				return err
			}
			if dir == gated {
				if err := r.approve(dir); err != nil {
					return err
				}
			}
			start := time.Now()
			if _, err := r.sh(dir, nil, "git", "commit", "-q", "-m", fmt.Sprint("round ", i)); err != nil {
				return err
			}
			if i == 0 {
				continue
			}
			switch dir {
			case gated:
				withGate = append(withGate, time.Since(start))
			case plain:
				withEmpty = append(withEmpty, time.Since(start))
			default:
				withFloor = append(withFloor, time.Since(start))
			}
		}
	}
	if out, err := r.sh(gated, nil, "git", "diffgate", "verify", fmt.Sprintf("HEAD~%d..HEAD", rounds)); err != nil {
		return fmt.Errorf("the gated commits do not verify: %v %s", err, out)
	}
	g, e, f := medianOf(withGate), medianOf(withEmpty), medianOf(withFloor)
	added := g - e
	fmt.Printf("hooks    approved commit with every hook (--strict) %v, with an empty hook %v: added %v (goal ≤ 15ms) %s\n",
		round(g), round(e), round(added), verdict(added <= 15*time.Millisecond))
	fmt.Printf("         of which starting the hooks: the same hooks running only 'git-diffgate --version' add %v\n", round(f-e))
	return nil
}

// approve answers the gate's prompt on a pseudo-terminal, as a person would.
func (r *runner) approve(dir string) error {
	c := r.cmd(dir, "git", "diffgate")
	res, err := ttydriver.Run(c, "", []ttydriver.Step{{Expect: regexp.MustCompile(`Type APPROVE`), Send: "APPROVE\n"}}, time.Minute)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("approval failed (%d): %s", res.ExitCode, ttydriver.Plain(res.Output))
	}
	return nil
}

func medianOf(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
