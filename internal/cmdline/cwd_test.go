package cmdline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-tdd/git-tdd/internal/state"
)

func TestHowGone(t *testing.T) {
	for _, tt := range []struct {
		w    *state.Workflow
		want string
	}{
		{nil, ""},
		{&state.Workflow{Issue: "4", Phase: state.PhaseMerged}, ": git tdd merge removed it when it merged #4"},
		{&state.Workflow{Issue: "5", Phase: state.PhaseAborted}, ": git tdd abort removed it when it aborted #5"},
		{&state.Workflow{Issue: "6", Phase: "red"}, ": it was the worktree of #6"},
		{&state.Workflow{Issue: "7\x1b[2J", Phase: "red"}, ": it was the worktree of #7^[[2J"},
	} {
		if got := howGone(tt.w); got != tt.want {
			t.Errorf("howGone(%+v) = %q, want %q", tt.w, got, tt.want)
		}
	}
}

// TestSamePath: a path whose last parts are gone compares through the links
// of what still exists.
func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{filepath.Join(real, "gone"), filepath.Join(real, "gone"), true},
		{filepath.Join(real, "gone") + "/", filepath.Join(real, "x", "..", "gone"), true},
		{filepath.Join(link, "gone", "deeper"), filepath.Join(real, "gone", "deeper"), true},
		{filepath.Join(real, "gone"), filepath.Join(real, "other"), false},
		{filepath.Join(dir, "nothing", "gone"), filepath.Join(real, "gone"), false},
	} {
		if got := samePath(tt.a, tt.b); got != tt.want {
			t.Errorf("samePath(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestIssueSuffix(t *testing.T) {
	for in, want := range map[string]string{
		"/src/calc-issue-87":    "/src/calc",
		"/src/calc-issue-87-2":  "/src/calc",
		"/src/my-issue-x/calc":  "/src/my-issue-x/calc",
		"/src/calc":             "/src/calc",
		"/src/calc-issue-issue": "/src/calc",
	} {
		if got := issueSuffix().ReplaceAllString(in, ""); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
