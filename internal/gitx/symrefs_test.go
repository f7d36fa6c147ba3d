package gitx

import (
	"context"
	"reflect"
	"testing"
)

// TestSymbolicBranchesMatchesGit: the symbolic branches read from the loose
// refs are git's for-each-ref answer, nested names, packed refs and all.
func TestSymbolicBranchesMatchesGit(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("one")
	r.git("tag", "t")
	r.git("branch", "plain")
	r.git("pack-refs", "--all")
	r.git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
	r.git("symbolic-ref", "refs/heads/deep/evil", "refs/tags/t")
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.SymbolicBranches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byGit, err := repo.symbolicBranchesByGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"refs/heads/alias": "refs/heads/main", "refs/heads/deep/evil": "refs/tags/t"}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(byGit, want) {
		t.Errorf("read %v, git says %v, want %v", got, byGit, want)
	}
}
