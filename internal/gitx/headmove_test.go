package gitx

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestHeadMove moves HEAD in steps through real git: a committed move is
// recorded as git commit records one, an aborted or unprepared one leaves
// the branch where it was, a branch that moved meanwhile is refused, and a
// prepared move holds the branch's lock against a second process.
func TestHeadMove(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	r.commitAll("a")
	a := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	r.commitAll("b")
	b := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	head := func() string { return strings.TrimSpace(r.git("rev-parse", "HEAD")) }

	m, err := repo.StartHeadMove(ctx, "test(#1): red — 1 failing\n\nbody")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(b, a); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("git", "update-ref", "HEAD", b)
	other.Dir = r.dir
	if out, err := other.CombinedOutput(); err == nil {
		t.Errorf("a second git moved the branch while the move was prepared: %s", out)
	}
	m.Abort()
	if head() != b {
		t.Fatalf("an aborted move moved HEAD to %s", head())
	}

	m, err = repo.StartHeadMove(ctx, "test(#1): red — 1 failing\n\nbody")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(b, a); err != nil {
		t.Fatal(err)
	}
	if err := m.Commit(); err != nil {
		t.Fatal(err)
	}
	if head() != a {
		t.Fatalf("HEAD = %s, want %s", head(), a)
	}
	if got := r.git("reflog", "-1", "--format=%gs", "main"); got != "commit: test(#1): red — 1 failing\n" {
		t.Errorf("reflog: %q", got)
	}
	m.Abort() // after a commit: nothing

	m, err = repo.StartHeadMove(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	err = m.Prepare(b, a) // HEAD is at a now
	if err == nil || !strings.Contains(err.Error(), "HEAD moved while git tdd ran") {
		t.Fatalf("a moved branch: %v", err)
	}
	if err := m.Commit(); err == nil {
		t.Error("a refused move committed")
	}
	if head() != a {
		t.Fatalf("a refused move moved HEAD to %s", head())
	}

	m, err = repo.StartHeadMove(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	m.Abort() // never prepared
	if head() != a {
		t.Fatalf("HEAD = %s", head())
	}
	r.git("update-ref", "HEAD", b) // no lock left behind

	// cancelled while prepared (Ctrl-C): aborted, and no lock left
	cctx, cancel := context.WithCancel(ctx)
	m, err = repo.StartHeadMove(cctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prepare(b, a); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := m.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled move: %v", err)
	}
	if head() != b {
		t.Fatalf("a cancelled move moved HEAD to %s", head())
	}
	r.git("update-ref", "HEAD", a) // no lock left behind
}
