package gitx

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCommitInProcessAgreesWithGit writes commits in process and with git
// commit-tree from the same tree, parent, message and fixed dates: the same
// bytes have the same id. Undated, the idents are git var's, dated now.
func TestCommitInProcessAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	parent := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	tree := strings.TrimSpace(r.git("rev-parse", "HEAD^{tree}"))
	for _, msg := range []string{"test(#1): red — 1 failing\n\nProved.\n\nTdd-Phase: red\n", "no newline at the end", "x\n\n\n"} {
		t.Run(strconv.Quote(msg), func(t *testing.T) {
			t.Setenv("GIT_AUTHOR_NAME", "Zoë O'Brien")
			t.Setenv("GIT_AUTHOR_EMAIL", "zoe@example.com")
			t.Setenv("GIT_AUTHOR_DATE", "1700000000 +0130")
			t.Setenv("GIT_COMMITTER_DATE", "1700000123 -0700")
			repo, ids := openWithIdents(t, r)
			got, ok := repo.commitInProcess(tree, parent, msg, ids, time.Now())
			if !ok {
				t.Fatal("not written in process")
			}
			cmd := exec.Command("git", "commit-tree", tree, "-p", parent, "-F", "-")
			cmd.Dir, cmd.Stdin = r.dir, strings.NewReader(msg)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSpace(string(out)); got != want {
				t.Fatalf("commit = %s, git commit-tree = %s\n%s", got, want, r.git("cat-file", "commit", want))
			}
			r.git("fsck", "--strict", "--no-dangling", "--no-progress")
		})
	}
	t.Run("dated now", func(t *testing.T) {
		identFromConfig(t, r)
		if repo, _ := Open(ctx, r.dir); repo.identsMayDiffer() {
			t.Fatal("nothing tells author and committer apart, yet they may differ")
		}
		repo, ids := openWithIdents(t, r)
		before := time.Now().Unix()
		got, ok := repo.commitInProcess(tree, parent, "m\n", ids, time.Now())
		if !ok {
			t.Fatal("not written in process")
		}
		body := r.git("cat-file", "commit", got)
		for _, role := range []string{"author", "committer"} {
			want := strings.TrimSpace(r.git("var", "GIT_"+strings.ToUpper(role)+"_IDENT"))
			line := ""
			for l := range strings.Lines(body) {
				if rest, ok := strings.CutPrefix(l, role+" "); ok {
					line = strings.TrimSpace(rest)
				}
			}
			gw, gf := splitIdent(t, want)
			lw, lf := splitIdent(t, line)
			if gw != lw || gf[1] != lf[1] {
				t.Errorf("%s = %q, git var = %q", role, line, want)
			}
			if ts, _ := strconv.ParseInt(lf[0], 10, 64); ts < before || ts > time.Now().Unix() {
				t.Errorf("%s dated %s, not now", role, lf[0])
			}
		}
	})
	t.Run("author.name of its own", func(t *testing.T) {
		identFromConfig(t, r)
		r.git("config", "author.name", "Someone Else")
		defer r.git("config", "--unset", "author.name")
		_, ids := openWithIdents(t, r)
		if !strings.HasPrefix(ids.author.who, "Someone Else <") || strings.HasPrefix(ids.committer.who, "Someone Else") {
			t.Errorf("author %q, committer %q", ids.author.who, ids.committer.who)
		}
	})
	t.Run("i18n.commitEncoding goes to git", func(t *testing.T) {
		r.git("config", "i18n.commitEncoding", "ISO-8859-1")
		defer r.git("config", "--unset", "i18n.commitEncoding")
		repo, ids := openWithIdents(t, r)
		if _, ok := repo.commitInProcess(tree, parent, "m\n", ids, time.Now()); ok {
			t.Error("written in process")
		}
	})
}

func splitIdent(t *testing.T, s string) (string, []string) {
	t.Helper()
	gt := strings.LastIndexByte(s, '>')
	f := strings.Fields(s[gt+1:])
	if gt < 0 || len(f) != 2 {
		t.Fatalf("not an ident: %q", s)
	}
	return s[:gt+1], f
}

func TestParseIdent(t *testing.T) {
	tests := []struct {
		in    string
		fixed bool
		want  ident
		ok    bool
	}{
		{"A U Thor <a@x> 1700000000 +0130\n", false, ident{who: "A U Thor <a@x>", zone: "+0130"}, true},
		{"A U Thor <a@x> 1700000000 -0700\n", true, ident{who: "A U Thor <a@x>", date: "1700000000 -0700", zone: "-0700"}, true},
		{"<a@x> 1 +0000\n", false, ident{}, false},
		{"A <a@x>\n", false, ident{}, false},
		{"A <a@x> 1 +000\n", false, ident{}, false},
		{"A <a@x> x +0000\n", false, ident{}, false},
		{"A <a@x> 1 +0000 extra\n", false, ident{}, false},
		{"A\nB <a@x> 1 +0000\n", false, ident{}, false},
	}
	for _, tt := range tests {
		got, err := parseIdent(tt.in, tt.fixed)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseIdent(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestGitDate(t *testing.T) {
	for _, tt := range []struct {
		off  int
		want string
	}{{0, "+0000"}, {5400, "+0130"}, {-12600, "-0330"}, {-25200, "-0700"}, {45900, "+1245"}} {
		at := time.Unix(1700000000, 0).In(time.FixedZone("z", tt.off))
		if got := gitDate(at); got != "1700000000 "+tt.want {
			t.Errorf("offset %d: %s", tt.off, got)
		}
	}
}

// identFromConfig moves who commits from the test's environment to the
// repository's user.name and user.email, where most users set it.
func identFromConfig(t *testing.T, r *testRepo) {
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	r.git("config", "user.name", "Zoë O'Brien")
	r.git("config", "user.email", "zoe@example.com")
}

// openWithIdents opens the test repository and asks who commits there.
func openWithIdents(t *testing.T, r *testRepo) (*Repo, Idents) {
	t.Helper()
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := repo.Idents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return repo, ids
}

// A TZ git (glibc) reads as a POSIX rule, "ABC-3" (UTC+3) or "<+0530>-5:30",
// names no zone file, and Go's time takes it as UTC: the commit written in
// process is dated +0000 where git commit-tree dates it +0300, although TZ is
// the same for both. It goes to git.
func TestCommitInProcessDatesAsGitUnderAPosixTZ(t *testing.T) {
	if os.Getenv("GITX_TZ_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommitInProcessDatesAsGitUnderAPosixTZ$", "-test.v")
		cmd.Env = append(os.Environ(), "GITX_TZ_CHILD=1", "TZ=ABC-3")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	ctx := context.Background()
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	identFromConfig(t, r)
	parent := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	tree := strings.TrimSpace(r.git("rev-parse", "HEAD^{tree}"))
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := repo.Idents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := repo.commitInProcess(tree, parent, "m\n", ids, time.Now()); ok {
		t.Error("written in process in a zone Go does not read as git does")
	}
	got, err := repo.DraftCommit(ctx, parent, &Staged{Tree: tree}, "m\n", ids)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(strings.TrimSpace(r.git("var", "GIT_COMMITTER_IDENT")))
	body := r.git("cat-file", "commit", got)
	for l := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(l, "committer "); ok {
			f := strings.Fields(rest)
			if f[len(f)-1] != want[len(want)-1] {
				t.Errorf("committer dated %s, git dates it %s", f[len(f)-1], want[len(want)-1])
			}
		}
	}
}
