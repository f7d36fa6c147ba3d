package state

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRecordNames(t *testing.T) {
	tests := []struct {
		name, issue string
		n           int
		ok          bool
	}{
		{"87", "87", 1, true},
		{"87-2", "87", 2, true},
		{"87-13", "87", 13, true},
		{"87-1", "87", 0, false}, // the first is the issue itself
		{"87-0", "87", 0, false},
		{"87-02", "87", 0, false},
		{"87-", "87", 0, false},
		{"87-x", "87", 0, false},
		{"87-2", "8", 0, false},
		{"88", "87", 0, false},
		{"87-99999999999999999999", "87", 0, false},
		{"PROJ-9", "PROJ-9", 1, true},
		{"PROJ-9-2", "PROJ-9", 2, true},
		{"PROJ-9", "PROJ", 9, true}, // a record of PROJ; NextName never makes it when PROJ-9 holds it
	}
	for _, tt := range tests {
		n, ok := RecordNumber(tt.name, tt.issue)
		if n != tt.n || ok != tt.ok {
			t.Errorf("RecordNumber(%q, %q) = %d, %v; want %d, %v", tt.name, tt.issue, n, ok, tt.n, tt.ok)
		}
		if ok && RecordName(tt.issue, n) != tt.name {
			t.Errorf("RecordName(%q, %d) = %q, want %q", tt.issue, n, RecordName(tt.issue, n), tt.name)
		}
	}
}

func TestNextNameAndLookup(t *testing.T) {
	wf := func(issue, phase string) *Workflow { return &Workflow{Issue: issue, Phase: phase} }
	tests := []struct {
		desc      string
		workflows map[string]*Workflow
		issue     string
		next      string
		lookup    string // the record Lookup(issue) finds, "" for none
	}{
		{"none", nil, "87", "87", ""},
		{"merged", map[string]*Workflow{"87": wf("87", PhaseMerged)}, "87", "87-2", "87"},
		{"merged, then active", map[string]*Workflow{"87": wf("87", PhaseMerged), "87-2": wf("87", PhaseRed)}, "87", "87-3", "87-2"},
		{"a gap is not filled", map[string]*Workflow{"87": wf("87", PhaseMerged), "87-3": wf("87", PhaseAborted)}, "87", "87-4", "87"},
		{"a name another issue holds is skipped", map[string]*Workflow{
			"PROJ": wf("PROJ", PhaseMerged), "PROJ-2": wf("PROJ-2", PhaseAborted)}, "PROJ", "PROJ-3", "PROJ"},
		{"its first name held by another issue's record", map[string]*Workflow{
			"PROJ": wf("PROJ", PhaseMerged), "PROJ-2": wf("PROJ", PhaseStarted)}, "PROJ-2", "PROJ-2-2", "PROJ-2"},
		{"other issues only", map[string]*Workflow{"9": wf("9", PhaseGreen)}, "87", "87", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			st := &State{Workflows: tt.workflows}
			if got := st.NextName(tt.issue); got != tt.next {
				t.Errorf("NextName(%q) = %q, want %q", tt.issue, got, tt.next)
			}
			got := ""
			if w := st.Lookup(tt.issue); w != nil {
				got = w.Name
			}
			if got != tt.lookup {
				t.Errorf("Lookup(%q) = %q, want %q", tt.issue, got, tt.lookup)
			}
		})
	}
}

// Records of an issue started again keep their own names through a write and
// a read, and list in the order they were started.
func TestHistoryRoundTrip(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	err := s.Update(ctx, func(st *State) error {
		st.Workflows = map[string]*Workflow{}
		for _, r := range []struct{ name, phase string }{{"87-10", PhaseStarted}, {"87", PhaseMerged}, {"87-2", PhaseAborted}, {"9", PhaseRed}} {
			st.Workflows[r.name] = &Workflow{Issue: strings.SplitN(r.name, "-", 2)[0], Phase: r.phase, Branch: "feat/issue-87"}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, w := range st.SortedWorkflows() {
		order = append(order, w.Name+":"+w.Phase)
	}
	if got := strings.Join(order, ","); got != "9:red,87:merged,87-2:aborted,87-10:started" {
		t.Errorf("order %s", got)
	}
	if w := st.Lookup("87"); w == nil || w.Name != "87-10" {
		t.Errorf("Lookup(87) = %+v, want the active 87-10", w)
	}
	if w := st.Lookup("87-2"); w == nil || w.Phase != PhaseAborted {
		t.Errorf("Lookup(87-2) = %+v", w)
	}
	if h := st.History("87"); len(h) != 3 {
		t.Errorf("History(87) has %d records", len(h))
	}
}

func TestParseRefusesRecordsOfAnotherIssue(t *testing.T) {
	for _, tt := range []struct {
		key, issue string
		ok         bool
	}{
		{"87", "87", true},
		{"87-2", "87", true},
		{"87-1", "87", false},
		{"87-2", "88", false},
		{"88", "87", false},
		{"87-2x", "87", false},
	} {
		doc := fmt.Sprintf("version = 1\n[workflow.%q]\nissue = %q\nphase = \"merged\"\nbranch = \"feat/issue-87\"\n", tt.key, tt.issue)
		st, err := Parse([]byte(doc), "state.toml")
		if (err == nil) != tt.ok {
			t.Errorf("key %q issue %q: err %v, want ok %v", tt.key, tt.issue, err, tt.ok)
		}
		if err == nil && st.Workflows[tt.key].Name != tt.key {
			t.Errorf("key %q read back as %q", tt.key, st.Workflows[tt.key].Name)
		}
	}
}

// A reason is kept whole up to MaxReason bytes, else cut at a character's
// boundary with a mark, never beyond the bound.
func TestBoundReason(t *testing.T) {
	for _, tt := range []struct {
		in       string
		wantCut  bool
		wantPref string
	}{
		{"handle negative numbers", false, "handle negative numbers"},
		{strings.Repeat("a", MaxReason), false, "aaaa"},
		{strings.Repeat("a", MaxReason+1), true, "aaaa"},
		{strings.Repeat("é", MaxReason), true, "éééé"},
		{"x" + strings.Repeat("日", MaxReason), true, "x日日"},
	} {
		got := BoundReason(tt.in)
		if len(got) > MaxReason || !utf8.ValidString(got) || !strings.HasPrefix(got, tt.wantPref) {
			t.Errorf("BoundReason(%.10q…) = %d bytes, valid %v", tt.in, len(got), utf8.ValidString(got))
		}
		if cut := strings.HasSuffix(got, "…") && got != tt.in; cut != tt.wantCut {
			t.Errorf("BoundReason(%.10q…): cut %v, want %v", tt.in, cut, tt.wantCut)
		}
	}
}

// The reasons of REJECT survive state.toml, quotes, newlines and all.
func TestRejectionsRoundTrip(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	reason := "mul must \"round\" floats\nand handle -0 \x1b[2J"
	err := s.Update(ctx, func(st *State) error {
		st.Workflows = map[string]*Workflow{"87": {Issue: "87", Phase: PhaseGreen, Branch: "feat/issue-87",
			Run: &Run{Node: "implement", Rejections: []Rejection{{Reason: reason}}}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Workflows["87"].Run.Rejections; len(r) != 1 || r[0].Reason != reason {
		t.Errorf("rejections %+v", r)
	}
}

// An issue is a letter or digit, then up to 63 letters, digits, '.', '_' or
// '-': what the regexp ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ matched.
func TestIsIssueName(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"87", true},
		{"a", true},
		{"fix-login_2.1", true},
		{"Z" + strings.Repeat("-", 63), true},
		{"Z" + strings.Repeat("-", 64), false},
		{"", false},
		{"-x", false},
		{".x", false},
		{"_x", false},
		{"a/b", false},
		{"a b", false},
		{"a\n", false},
		{"é", false},
		{"a\xff", false},
		{"a\x00", false},
	} {
		if got := IsIssueName(tt.s); got != tt.want {
			t.Errorf("IsIssueName(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
