package commitmsg

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFinalTrailersAsGit checks FinalTrailers against git's own trailer
// parser: each message is made a commit with git commit-tree (which keeps it
// as it is) and read back with %(trailers:only,unfold), which is what git
// diffgate verify read before it parsed messages itself.
func TestFinalTrailersAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	git := func(stdin string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		c.Stdin = strings.NewReader(stdin)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("", "init", "-q")
	tree := strings.TrimSpace(git("", "mktree"))

	var messages []string
	seen := map[string]bool{}
	for _, m := range append(sampleMessages(), randomMessages(300)...) {
		if !seen[m] {
			seen[m] = true
			messages = append(messages, m)
		}
	}
	var ids []string
	for i, msg := range messages {
		f := filepath.Join(dir, "msg")
		if err := os.WriteFile(f, []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(git("", "commit-tree", tree, "-F", f))
		if raw := git("", "cat-file", "commit", id); !strings.HasSuffix(raw, "\n\n"+msg) {
			t.Fatalf("message %d was not kept as it is: %q", i, raw)
		}
		ids = append(ids, id)
	}
	out := git("", append([]string{"log", "--no-walk=unsorted", "--format=%H%x00%(trailers:only,unfold)%x00"}, ids...)...)
	got := map[string]string{}
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		got[strings.TrimSpace(f[i])] = f[i+1]
	}
	if len(got) != len(ids) {
		t.Fatalf("git log printed %d commits of %d", len(got), len(ids))
	}
	for i, msg := range messages {
		var ours strings.Builder
		for _, tr := range FinalTrailers(msg) {
			ours.WriteString(tr.Key + ": " + tr.Value + "\n")
		}
		theirs := got[ids[i]]
		if ours.String() != theirs {
			t.Errorf("message %q:\nours %q\ngit  %q", msg, ours.String(), theirs)
		}
	}
}

// sampleMessages are the shapes that matter: where git's trailer block starts
// and ends.
func sampleMessages() []string {
	approved := "Diffgate-Approved: 2026-01-01T00:00:00Z tree=" + strings.Repeat("ab", 20)
	return []string{
		"subject\n",
		approved + "\n",
		"subject\n\n" + approved + "\n",
		"subject\n\nbody\n\n" + approved + "\nTDD-Phase: red\n",
		"subject\n\n" + approved + "\n\nbody after\n",
		"subject\n\nTDD-Failing: t[a\n" + approved + "\nX-Pad: ]\n",
		"subject\n\ntext\ntext\ntext\nSigned-off-by: A\n" + approved + "\n",
		"subject\n\ntext\ntext\ntext\ntext\n" + approved + "\n",
		"subject\n\ntext\nSigned-off-by: A\n" + approved + "\n",
		"subject\n\n" + approved + "\n---\n a | 1 +\n",
		"subject\n\n---\n\n" + approved + "\n",
		"subject\n\n" + approved + "\n\n# comment\n\n",
		"subject\n\n" + approved + "\n# comment inside\nKey: v\n",
		"subject\n\n# ------------------------ >8 ------------------------\n\n" + approved + "\n",
		"subject\n\n" + approved + "\nConflicts:\n\ta.txt\n",
		"subject\n\nKey: v\n continued\n  again\n" + approved + "\n",
		"subject\n\n continued first\nKey: v\n",
		"subject\n\nKey : spaced\nK\tey: x\n",
		"\n\n  \nsubject after blank lines\n\n" + approved + "\n",
		"subject\ncontinued subject\n" + approved + "\n",
		"subject\n\n(cherry picked from commit abc)\ntext\ntext\ntext\n" + approved + "\n",
		"subject\n\r\n" + approved + "\r\n",
		"subject\n\n" + approved,
		"subject\n\nKey:\n",
		"subject\n\n:nokey\nKey: v\n",
		"subject\n\nKey: v\n\n\n",
	}
}

// randomMessages are messages made of the lines git's parser treats apart.
func randomMessages(n int) []string {
	lines := []string{
		"", "", "text", "more text", "Key: value", "Other-Key: v", "Diffgate-Approved: t tree=1",
		" continuation", "\tcontinuation", "# comment", "---", "--- x", "Signed-off-by: A <a@x>",
		"(cherry picked from commit 123)", "Conflicts:", "\ta.txt", "Key : spaced", "Key:",
		"# ------------------------ >8 ------------------------", "  ", "a:b", "ünï: code",
	}
	r := rand.New(rand.NewSource(20))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		b.WriteString("subject\n")
		for j := r.Intn(9); j >= 0; j-- {
			b.WriteString(lines[r.Intn(len(lines))] + "\n")
		}
		out[i] = b.String()
	}
	return out
}
