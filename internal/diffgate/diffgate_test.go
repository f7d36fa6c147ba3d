package diffgate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/gitx"
)

const (
	zero = "0000000000000000000000000000000000000000"
	c1   = "1111111111111111111111111111111111111111"
	c2   = "2222222222222222222222222222222222222222"
)

func TestParseRefUpdates(t *testing.T) {
	in := zero + " " + c1 + " HEAD\n" + c1 + " " + c2 + " refs/heads/main\n\n" + c2 + " " + zero + " refs/heads/gone\n" +
		c1 + " " + c1 + " refs/heads/same\n" + c1 + " " + c2 + " refs/tags/v1\n" + c1 + " " + c2 + " refs/remotes/origin/main\n" +
		c1 + " " + c2 + " refs/stash\n" + zero + " " + c2 + " refs/heads/new\n" +
		zero + " ref:refs/heads/main refs/heads/alias\n" // git 2.46+: a symbolic ref (to a branch: lands nothing)
	us, err := ParseRefUpdates([]byte(in))
	if err != nil || len(us) != 9 {
		t.Fatalf("%v %v", us, err)
	}
	var judged []string
	for _, u := range us {
		if u.Judged() {
			judged = append(judged, u.Ref)
		}
	}
	if strings.Join(judged, " ") != "refs/heads/main refs/heads/new" {
		t.Errorf("judged %v: branch moves and creations only; HEAD, tags, remotes, stash, deletions and no-ops pass", judged)
	}
	if _, err := ParseRefUpdates([]byte("only two")); err == nil {
		t.Error("accepted a malformed line")
	}
}

func TestDropStaleTrailers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "MSG")
	msg := "subject\n\nbody mentions tree=abc\n\nSigned-off-by: A <a@x>\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=aaaa\nDiffgate-Approved: 2026-01-02T00:00:00Z tree=bbbb\n"
	os.WriteFile(p, []byte(msg), 0o644)
	if err := dropStaleTrailers(p, "bbbb"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "subject\n\nbody mentions tree=abc\n\nSigned-off-by: A <a@x>\nDiffgate-Approved: 2026-01-02T00:00:00Z tree=bbbb\n"
	if string(got) != want {
		t.Errorf("got %q", got)
	}
}

func TestDropStaleTrailersEndsWithNewline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "MERGE_MSG")
	os.WriteFile(p, []byte("Merge branch 'f'"), 0o644)
	dropStaleTrailers(p, "x")
	if got, _ := os.ReadFile(p); string(got) != "Merge branch 'f'\n" {
		t.Errorf("%q", got)
	}
}

func TestApprovalProblem(t *testing.T) {
	tree := strings.Repeat("a", 40)
	other := strings.Repeat("b", 40)
	approved := func(tr string) string { return "Diffgate-Approved: 2026-11-21T12:00:00Z tree=" + tr }
	tests := []struct {
		name, msg, want string
	}{
		{"approved", "Fix\n\n" + approved(tree) + "\n", ""},
		{"none", "Fix\n", "no Diffgate-Approved trailer"},
		{"another tree", "Fix\n\n" + approved(other) + "\n", "approves tree bbbbbbbbbbbb, but the commit's tree is aaaaaaaaaaaa"},
		{"two, one of this tree", "Fix\n\n" + approved(other) + "\n" + approved(tree) + "\n", "2 Diffgate-Approved trailers"},
		{"two of this tree", "Fix\n\n" + approved(tree) + "\n" + approved(tree) + "\n", "2 Diffgate-Approved trailers"},
		{"no tree", "Fix\n\nDiffgate-Approved: yes please\n", "malformed"},
		{"a longer word", "Fix\n\n" + approved(tree) + "x\n", "malformed"},
		{"not in the final block", "Fix\n\n" + approved(tree) + "\n\nMore.\n", "final trailer block"},
		{"a red commit", "test(#87): red — 1 failing\n\nTDD-Phase: red\nTDD-Failing: t[a\n" + approved(tree) + "\nX-Pad: ]\n",
			"a git tdd gate commit (TDD-Phase: red), which lands only through an approved git tdd merge"},
		{"a green commit", "feat(#87): green\n\n" + approved(tree) + "\nTDD-Phase: green\n", "gate commit (TDD-Phase: green)"},
		{"a git tdd merge", "Merge #87: x\n\nTDD-Issue: 87\n" + approved(tree) + "\n", ""},
	}
	for _, tt := range tests {
		got := approvalProblem(tree, tt.msg)
		if (tt.want == "" && got != "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestReviewedBranchesLeavesWorkflowsOut(t *testing.T) {
	tests := []struct {
		exempt map[string]bool
		want   []string
	}{
		{nil, []string{"--branches"}},
		{map[string]bool{"refs/heads/feat/issue-9": true, "refs/heads/feat/issue-10": true},
			[]string{"--exclude=feat/issue-10", "--exclude=feat/issue-9", "--branches"}},
	}
	for _, tt := range tests {
		if got := reviewedBranches(tt.exempt); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("reviewedBranches(%v) = %q, want %q", tt.exempt, got, tt.want)
		}
	}
}

func TestSignatureProblem(t *testing.T) {
	tests := []struct {
		sig, key, want string
	}{
		{"G", "SHA256:abc", ""},
		{"G", "0123456789ABCDEF", "signed with a key that is not an SSH key of .allowed_signers (0123456789ABCDEF)"},
		{"U", "SHA256:abc", "signed by a key that is not in .allowed_signers (SHA256:abc)"},
		{"N", "", "not signed"},
		{"E", "", "its signature cannot be checked (E)"},
	}
	for _, tt := range tests {
		if got := signatureProblem(gitx.TrailedCommit{Signature: tt.sig, Key: tt.key}, ".allowed_signers"); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.sig, tt.key, got, tt.want)
		}
	}
}
