package issueflow

import (
	"strings"
	"testing"
)

func TestAuditCommentRoundTrip(t *testing.T) {
	files := map[string][]byte{"002-draft.md": []byte("# T\n"), "001-brief.md": []byte("b\n"), "010-verdict.md": []byte("v\n")}
	body := WithAuditComment([]byte("Text.\n"), files)
	if !strings.HasPrefix(string(body), "Text.\n\n<!-- git-tdd audit: 001-brief.md=") || !strings.HasSuffix(string(body), " -->\n") {
		t.Fatalf("body %q", body)
	}
	if strings.Index(string(body), "002-draft.md") > strings.Index(string(body), "010-verdict.md") {
		t.Fatalf("not in event order: %q", body)
	}
	// GitHub gives it back with \r\n
	got, ok := ParseAuditComment(strings.ReplaceAll(string(body), "\n", "\r\n"))
	if !ok || len(got) != 3 || got["002-draft.md"] != sha([]byte("# T\n")) {
		t.Fatalf("parsed %v %v", got, ok)
	}
	if s := StripAuditComment(string(body)); !SameText(s, "Text.\n") {
		t.Fatalf("stripped %q", s)
	}
	// a record-like line in the draft itself is text: only the one at the end counts
	fake := "<!-- git-tdd audit: 002-draft.md=" + strings.Repeat("0", 64) + " -->"
	body = WithAuditComment([]byte("Text.\n"+fake+"\nMore.\n"), files)
	if got, _ := ParseAuditComment(string(body)); got["002-draft.md"] != sha([]byte("# T\n")) {
		t.Fatalf("the draft's line was taken for the record: %v", got)
	}
	if s := StripAuditComment(string(body)); !strings.Contains(s, fake) || strings.Contains(s, sha([]byte("# T\n"))) {
		t.Fatalf("stripped %q", s)
	}
	for _, bad := range []string{"Text.", "<!-- git-tdd audit: x=y -->", "<!-- git-tdd audit: 001-brief.md=abc -->", fake + "\ntext after"} {
		if _, ok := ParseAuditComment(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}
