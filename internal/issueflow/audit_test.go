package issueflow

import (
	"strings"
	"testing"
)

func TestSlugFor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"notes/governance-notes.md", "governance-notes"}, // seed 004 N0's example
		{"widget-export.md", "widget-export"},
		{"Widget Export.md", "widget-export"},
		{"a;b$(c).md", "a-b-c"},
		{"-rf.md", "rf"},
		{"caf\xe9.md", "caf"},
		{"日本語.md", ""},
		{"v1.2 plan.txt", "v1.2-plan"},
		{"noext", "noext"},
		{".hidden.md", "hidden"},
		{strings.Repeat("x", 200) + ".md", strings.Repeat("x", 64)},
	} {
		if got := SlugFor(tc.in); got != tc.want {
			t.Errorf("SlugFor(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCheckSlug(t *testing.T) {
	for _, ok := range []string{"foo", "foo-2", "a.b_c"} {
		if err := CheckSlug(ok); err != nil {
			t.Errorf("CheckSlug(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Foo", "a/b", "..", "-x", "a b", "new\nline"} {
		if err := CheckSlug(bad); err == nil {
			t.Errorf("CheckSlug(%q) accepted", bad)
		}
	}
}

// TestPosition is seed 004's event order: where a workflow stands follows
// from its numbered files alone (test 170: numbering; 150: resume).
func TestPosition(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  Position
		err   string
	}{
		{"brief only: draft it", []string{"001-brief.md"},
			Position{Node: NodeDraft, Next: 2}, ""},
		{"a draft: its gate", []string{"001-brief.md", "002-draft.md"},
			Position{Node: NodeEditDraft, Next: 3, Drafts: 1, Draft: "002-draft.md"}, ""},
		{"feedback: draft again", []string{"001-brief.md", "002-draft.md", "003-feedback.txt"},
			Position{Node: NodeDraft, Next: 4, Drafts: 1, Draft: "002-draft.md", Feedback: "003-feedback.txt"}, ""},
		{"a verdict: its gate", []string{"001-brief.md", "002-draft.md", "003-verdict.md"},
			Position{Node: NodeEditVerdict, Next: 4, Drafts: 1, Verdicts: 1, Draft: "002-draft.md", Verdict: "003-verdict.md"}, ""},
		{"filed", []string{"001-brief.md", "002-draft.md", "003-verdict.md", "004-filed.json"},
			Position{Node: NodeFiled, Next: 5, Drafts: 1, Verdicts: 1, Draft: "002-draft.md", Verdict: "003-verdict.md", Filed: "004-filed.json"}, ""},
		{"loops", []string{"001-brief.md", "002-draft.md", "003-feedback.txt", "004-draft.md", "005-verdict.md", "006-feedback.txt", "007-draft.md"},
			Position{Node: NodeEditDraft, Next: 8, Drafts: 3, Verdicts: 1, Draft: "007-draft.md"}, ""},
		{"order by number, not name", []string{"010-draft.md", "001-brief.md", "009-feedback.txt", "002-draft.md"},
			Position{Node: NodeEditDraft, Next: 11, Drafts: 2, Draft: "010-draft.md"}, ""},
		{"past 999", []string{"001-brief.md", "999-feedback.txt", "1000-draft.md"},
			Position{Node: NodeEditDraft, Next: 1001, Drafts: 1, Draft: "1000-draft.md"}, ""},
		{"other files ignored", []string{"001-brief.md", "notes.txt", "002-draft.md~", ".002-draft.md.swp", "002-draft.md"},
			Position{Node: NodeEditDraft, Next: 3, Drafts: 1, Draft: "002-draft.md"}, ""},
		{"no brief", []string{"002-draft.md"}, Position{}, "no 001-brief.md"},
		{"empty", nil, Position{}, "no 001-brief.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PositionOf(tc.files)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("PositionOf = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct {
		n    int
		kind Kind
		want string
	}{
		{1, KindBrief, "001-brief.md"}, {12, KindFeedback, "012-feedback.txt"}, {4, KindFiled, "004-filed.json"}, {1000, KindDraft, "1000-draft.md"},
	} {
		if got := FileName(tc.n, tc.kind); got != tc.want {
			t.Errorf("FileName(%d, %s) = %q, want %q", tc.n, tc.kind, got, tc.want)
		}
	}
}
