package gitx

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const testTrailer = "Diffgate-Approved: 2026-11-24T00:00:00Z tree=abc"

// interpretTrailers is git's own answer.
func interpretTrailers(t *testing.T, msg string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(f, []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("git", "interpret-trailers", "--in-place", "--where", "end", "--if-exists", "replace",
		"--if-missing", "add", "--trailer", testTrailer, f)
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("interpret-trailers: %v %s", err, out)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendTrailerIsGits(t *testing.T) {
	tests := []struct {
		name, msg string
		ok        bool
	}{
		{"subject only", "add mul\n", true},
		{"subject and body", "add mul\n\nIt multiplies.\n", true},
		{"two-line subject", "add mul\nand div\n", true},
		{"after other trailers", "add mul\n\nbody\n\nSigned-off-by: A <a@example.com>\n", true},
		{"replaces its own", "add mul\n\nSigned-off-by: A\nDiffgate-Approved: 2020-01-01T00:00:00Z tree=abc\n", true},
		{"replaces whatever the case", "add mul\n\ndiffgate-approved: old\nFixes: 1\n", true},
		{"continuation lines", "add mul\n\nKey: value\n  more of it\nOther: x\n", true},
		{"trailing blank lines", "add mul\n\nbody\n\n\n", true},
		{"a colon in prose", "add mul\n\nthe rule is: it multiplies\n", true},
		{"a subject that looks like a trailer", "Subject: like this\n", true},
		{"a trailer-like subject and a body", "Subject: like this\n\nbody\n", true},
		{"some trailers in a paragraph", "add mul\n\nFixes: 12\nand some prose\n", false},
		{"comments", "add mul\n# Please enter the commit message\n", false},
		{"another comment char", "add mul\n\n; a comment\n", false},
		{"a patch divider", "add mul\n---\n a.txt | 1 +\n", false},
		{"no final newline", "add mul", false},
		{"empty", "", false},
		{"CRLF", "add mul\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := AppendTrailer([]byte(tt.msg), testTrailer)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%q)", ok, tt.ok, got)
			}
			if ok {
				if want := interpretTrailers(t, tt.msg); string(got) != want {
					t.Errorf("got\n%q\ngit interpret-trailers\n%q", got, want)
				}
			}
		})
	}
}

// TestAppendTrailerRandom: for messages made of likely lines, whenever
// AppendTrailer answers, its answer is git's.
func TestAppendTrailerRandom(t *testing.T) {
	pool := []string{"", "", "fix the thing", "Signed-off-by: A <a@b>", "Fixes: #1", "Diffgate-Approved: x",
		"prose: with a colon", "  continued", "Co-authored-by: B", "more prose", "Key : spaced", "x",
		"Key:nospace", "Two:  spaces", "Trailing: space ", "\tTabbed", "diffgate-approved: y", "a b: c"}
	r := rand.New(rand.NewPCG(1, 2))
	answered := 0
	for i := 0; i < 300; i++ {
		n := 1 + r.IntN(7)
		lines := []string{"subject"}
		for j := 0; j < n; j++ {
			lines = append(lines, pool[r.IntN(len(pool))])
		}
		msg := strings.Join(lines, "\n") + "\n"
		got, ok := AppendTrailer([]byte(msg), testTrailer)
		if !ok {
			continue
		}
		answered++
		if want := interpretTrailers(t, msg); string(got) != want {
			t.Fatalf("message %q:\ngot  %q\ngit  %q", msg, got, want)
		}
	}
	if answered < 80 {
		t.Errorf("only %d of 300 answered in process", answered)
	}
}

func FuzzAppendTrailer(f *testing.F) {
	f.Add([]byte("subject\n\nbody\n\nA: b\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		out, ok := AppendTrailer(msg, testTrailer)
		if ok && !strings.Contains(string(out), testTrailer+"\n") {
			t.Fatalf("trailer missing from %q", out)
		}
	})
}

// The trailer is added with git's defaults, whatever the repository's
// configuration says about trailers: no trailer.<token>.command runs (nor
// adds its output to the message), no trailer.<token>.key renames ours; the
// comment character still counts.
func TestAddTrailerWithoutTrailerConfig(t *testing.T) {
	r := newTestRepo(t)
	ran := filepath.Join(t.TempDir(), "ran")
	r.git("config", "trailer.evil.key", "Evil")
	r.git("config", "trailer.evil.command", "touch "+ran+"; echo injected")
	r.git("config", "trailer.long.key", "Diffgate-Approved-Not")
	r.git("config", "core.commentChar", ";")
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	msg := "subject\n\nbody\n; a comment, which AppendTrailer leaves to git\n"
	r.write("MSG", msg)
	if _, ok := AppendTrailer([]byte(msg), testTrailer); ok {
		t.Fatal("AppendTrailer took the message: git is not asked")
	}
	if err := repo.AddTrailer(context.Background(), filepath.Join(r.dir, "MSG"), testTrailer); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(r.dir, "MSG"))
	want := "subject\n\nbody\n\n" + testTrailer + "\n; a comment, which AppendTrailer leaves to git\n"
	if string(got) != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("trailer.evil.command ran")
	}
}

// TestFirstParentTrailersConfig: what the repository's configuration says of
// trailers (an agent writes it) hides none from FirstParentTrailers, each of
// which hides them from git's %(trailers).
func TestFirstParentTrailersConfig(t *testing.T) {
	r := newTestRepo(t)
	r.commitAll("base")
	r.commitAll("test(#87): red — 2 failing\n\nTDD-Phase: red\nTDD-Failing: t::a\nTDD-Failing: t::b\n")
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range [][]string{nil, {"core.commentChar", "T"}, {"trailer.hide.key", "TDD-Failing-Hidden"}, {"trailer.separators", "="}} {
		if cfg != nil {
			r.git("config", cfg[0], cfg[1])
		}
		c, err := repo.FirstParentTrailers(context.Background(), "HEAD~1..HEAD", "TDD-Phase", "TDD-Failing")
		if err != nil || len(c) != 1 {
			t.Fatal(c, err)
		}
		if got := strings.Join(c[0].Trailers["TDD-Phase"], ",") + " " + strings.Join(c[0].Trailers["TDD-Failing"], ","); got != "red t::a,t::b" {
			t.Errorf("with %v: %q", cfg, got)
		}
		if cfg != nil {
			r.git("config", "--unset", cfg[0])
		}
	}
}
