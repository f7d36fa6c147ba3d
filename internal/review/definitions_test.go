package review

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
)

// A change large enough to be diffed in shards, whose texts arrive from
// several diff-trees at once, is judged as one: every file that lost a
// function is flagged, the moves across shards are seen.
func TestDefinitionsOfALargeChange(t *testing.T) {
	t.Setenv("GIT_TDD_DIFF_SHARDS", "2")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fn := func(name string, k int) string {
		return fmt.Sprintf("\n\ndef %s(x):\n    y = x * %d\n    y = y + %d\n    y = y - %d\n    return y\n", name, k, k+1, k+2)
	}
	pad := ""
	for i := range 10 {
		pad += fn(fmt.Sprintf("p%d", i), i)
	}
	git("init", "-q", "-b", "main")
	for d := 0; d < 6; d++ {
		for f := 0; f < 110; f++ {
			write(fmt.Sprintf("d%d/f%03d.py", d, f), fn("a", d*1000+f)+fn("b", d*1000+f+500)+fn("c", f)+pad)
		}
	}
	git("add", "-A")
	git("commit", "-qm", "init")
	var want []string
	for d := 0; d < 6; d++ {
		for f := 0; f < 110; f++ {
			p := fmt.Sprintf("d%d/f%03d.py", d, f)
			switch {
			case f%10 == 3: // b is lost
				write(p, fn("a", d*1000+f)+fn("c", f+1)+pad)
				want = append(want, p)
			case f%10 == 5 && d < 5: // b moves to the next directory: another shard
				write(p, fn("a", d*1000+f)+fn("c", f+1)+pad)
				write(fmt.Sprintf("d%d/moved%03d.py", d+1, f), fn("b", d*1000+f+500))
			default:
				write(p, fn("a", d*1000+f)+fn("b", d*1000+f+500)+fn("c", f+1)+pad)
			}
		}
	}
	git("add", "-A")
	ctx := context.Background()
	repo, err := gitx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	target, err := Staged(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(ctx, repo, target, analysis.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rep.Flagged)
	if !slices.Equal(rep.Flagged, want) {
		t.Errorf("flagged %d files, want the %d that lost b:\n%q", len(rep.Flagged), len(want), rep.Flagged)
	}
	moved := 0
	for _, f := range rep.Files {
		for _, m := range f.MovedSymbols {
			if m.Name == "b" && strings.HasPrefix(m.To, "d") && m.To[1] == f.Path[1]+1 {
				moved++
			}
		}
	}
	if moved != 55 {
		t.Errorf("%d moves across directories seen, want 55", moved)
	}
}
