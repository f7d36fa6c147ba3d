package lifecycle

import (
	"regexp"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

func TestCheckIssueNumber(t *testing.T) {
	jira := regexp.MustCompile(`^(?:PROJ-[0-9]+)$`)
	anything := regexp.MustCompile(`^(?:.*)$`)
	tests := []struct {
		issue   string
		pattern *regexp.Regexp
		ok      bool
	}{
		{"87", nil, true},
		{"1", nil, true},
		{"123456789012345678", nil, true},
		{"0", nil, false},
		{"087", nil, false}, // the same issue as 87, under another name
		{"-5", nil, false},
		{"+5", nil, false},
		{"1.5", nil, false},
		{"1e3", nil, false},
		{"abc", nil, false},
		{"PROJ-9", nil, false},
		{"PROJ-9", jira, true},
		{"87", jira, true}, // integers always
		{"PROJ-x", jira, false},
		{"xPROJ-9", jira, false},
		{"PROJ-9x", jira, false},
		{"abc", anything, true},
		{"../x", anything, false}, // never what cannot be a branch and a path
		{"a b", anything, false},
		{"a..b", anything, false},
		{"x.lock", anything, false},
		{"", anything, false},
		{strings.Repeat("a", 65), anything, false},
		{"٣", nil, false}, // a digit, not an ASCII one
	}
	for _, tt := range tests {
		err := CheckIssueNumber(tt.issue, tt.pattern)
		if (err == nil) != tt.ok {
			t.Errorf("CheckIssueNumber(%q, %v) = %v, want ok %v", tt.issue, tt.pattern, err, tt.ok)
		}
		if err != nil && exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%q: exit %d, want %d", tt.issue, exitcode.Of(err), exitcode.Usage)
		}
	}
}

func TestBackupIssue(t *testing.T) {
	tests := []struct {
		ref, issue string
		ok         bool
	}{
		{"refs/tdd/backup/87-20261127T031559Z", "87", true},
		{"refs/tdd/backup/87-20261127T031559Z-2", "87", true},
		{"refs/tdd/backup/PROJ-9-20261127T031559Z", "PROJ-9", true},
		{"refs/tdd/backup/87", "", false},
		{"refs/tdd/backup/87-2026", "", false},
		{"refs/tdd/backup/-20261127T031559Z", "", false},
	}
	for _, tt := range tests {
		issue, ok := backupIssue(tt.ref)
		if issue != tt.issue || ok != tt.ok {
			t.Errorf("backupIssue(%q) = %q, %v; want %q, %v", tt.ref, issue, ok, tt.issue, tt.ok)
		}
	}
}

func TestBackupSubjects(t *testing.T) {
	tests := []struct{ msg, kind string }{
		{"git tdd abort: uncommitted work of #87\n", "uncommitted work of"},
		{"git tdd merge: uncommitted work of #PROJ-9\n", "uncommitted work of"},
		{"git tdd abort: everything #87 held\n\nIts first parent is the worktree as it was.\n", "everything"},
		{"test(#87): red — 1 failing\n", ""},
		{"wip: git tdd abort: uncommitted work of #87\n", ""},
	}
	for _, tt := range tests {
		kind := ""
		if m := backupSubject().FindStringSubmatch(tt.msg); m != nil {
			kind = m[1]
		}
		if kind != tt.kind {
			t.Errorf("%q: %q, want %q", tt.msg, kind, tt.kind)
		}
	}
}
