package state

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLoadMissingIsEmpty(t *testing.T) {
	st, err := New(t.TempDir()).Load()
	if err != nil || st.Version != FileVersion || len(st.Approvals) != 0 {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestUpdateRoundTrip(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	a := Approval{Tree: "t1", Parent: "p1", Time: now, Message: "looks right", Flagged: []string{"a b.py", "日本.txt"}, By: "tty", Source: "review"}
	if err := s.Update(ctx, func(st *State) error { st.AddApproval(a); return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	got := st.FindApproval("t1", "p1")
	if got == nil || !got.Time.Equal(now) || got.Message != a.Message || strings.Join(got.Flagged, "|") != "a b.py|日本.txt" {
		t.Fatalf("got %+v", got)
	}
	if st.FindApproval("t1", "other") != nil {
		t.Error("an approval matched another parent")
	}
}

func TestAddApprovalReplacesAndCaps(t *testing.T) {
	st := &State{}
	st.AddApproval(Approval{Tree: "t", Parent: "p", Message: "one"})
	st.AddApproval(Approval{Tree: "t", Parent: "p", Message: "two"})
	if len(st.Approvals) != 1 || st.Approvals[0].Message != "two" {
		t.Fatalf("%+v", st.Approvals)
	}
	for i := 0; i < maxApprovals+10; i++ {
		st.AddApproval(Approval{Tree: fmt.Sprint(i), Parent: "p"})
	}
	if len(st.Approvals) != maxApprovals || st.FindApproval(fmt.Sprint(maxApprovals+9), "p") == nil || st.FindApproval("0", "p") != nil {
		t.Errorf("cap kept the wrong ones: %d", len(st.Approvals))
	}
	if !st.RemoveApproval(fmt.Sprint(maxApprovals+9), "p") || st.RemoveApproval("nope", "p") {
		t.Error("RemoveApproval")
	}
}

func TestCorruptStateIsNeverReset(t *testing.T) {
	tests := map[string]string{
		"syntax":      "version = 1\n[[approval]\ntree = ",
		"unknown key": "version = 1\nsurprise = true\n",
		"newer":       "version = 99\n",
		"no version":  "[[approval]]\ntree = \"x\"\n",
		"no tree":     "version = 1\n[[approval]]\nparent = \"x\"\n",
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			s := New(t.TempDir())
			os.MkdirAll(s.Dir, 0o755)
			os.WriteFile(s.Path(), []byte(content), 0o644)
			_, err := s.Load()
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), s.Path()) {
				t.Fatalf("err = %v, want a CorruptError naming the file", err)
			}
			err = s.Update(context.Background(), func(*State) error { return nil })
			if !errors.As(err, &ce) {
				t.Fatalf("update over a corrupt file: %v", err)
			}
			if b, _ := os.ReadFile(s.Path()); string(b) != content {
				t.Error("the corrupt file was rewritten")
			}
		})
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	s.Update(ctx, func(st *State) error { st.AddApproval(Approval{Tree: "a"}); return nil })
	before, _ := os.ReadFile(s.Path())
	boom := errors.New("boom")
	if err := s.Update(ctx, func(st *State) error { st.AddApproval(Approval{Tree: "b"}); return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(s.Path()); string(after) != string(before) {
		t.Error("a failed update changed the file")
	}
}

// Two commands at once never lose an update.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	var wg sync.WaitGroup
	const n = 40
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- s.Update(ctx, func(st *State) error {
				st.AddApproval(Approval{Tree: fmt.Sprint(i), Parent: "p"})
				return nil
			})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Load()
	if err != nil || len(st.Approvals) != n {
		t.Fatalf("%d approvals, want %d (%v)", len(st.Approvals), n, err)
	}
}

func TestLockRespectsContext(t *testing.T) {
	s := New(t.TempDir())
	unlock, err := s.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := s.Update(ctx, func(*State) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestAuditAppends(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s.Audit(ctx, AuditEntry{Command: "tdd write", Path: fmt.Sprintf("f%d.py", i), Before: Describe([]byte("a\n"), 1), Outcome: "written"})
		}(i)
	}
	wg.Wait()
	f, err := os.Open(s.AuditPath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Time.IsZero() || e.Before.SHA256 == "" {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		n++
	}
	if n != 20 {
		t.Errorf("%d lines, want 20", n)
	}
	if filepath.Base(s.AuditPath()) != "audit.jsonl" {
		t.Error(s.AuditPath())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("version = 1\n[[approval]]\ntree = \"t\"\nparent = \"p\"\ntime = 2026-11-21T12:00:00Z\nflagged = [\"a\"]\nby = \"tty\"\nsource = \"review\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data, "state.toml")
		if err != nil {
			return
		}
		enc, err := Encode(st)
		if err != nil {
			t.Fatalf("parsed state does not encode: %v", err)
		}
		st2, err := Parse(enc, "state.toml")
		if err != nil {
			t.Fatalf("encoded state does not parse: %v\n%s", err, enc)
		}
		if len(st2.Approvals) != len(st.Approvals) {
			t.Fatalf("round trip lost approvals")
		}
	})
}

func TestConsumeTurnsApprovalIntoReviewedCommit(t *testing.T) {
	st := &State{}
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	st.AddApproval(Approval{Tree: "t", Parent: "old-head", Time: at})
	if st.Consume("c1", "t", []string{"other"}) {
		t.Fatal("consumed with the wrong parent")
	}
	if !st.Consume("c1", "t", []string{"p1", "old-head"}) || st.FindApproval("t", "old-head") != nil {
		t.Fatal("not consumed")
	}
	if when, ok := st.ReviewedAt("c1"); !ok || !when.Equal(at) || st.IsReviewed("c2") {
		t.Error("ReviewedAt must give the approval's time")
	}
	if st.Consume("c1", "t", []string{"old-head"}) {
		t.Error("consumed twice")
	}
}

func TestActiveBranchesAndOrder(t *testing.T) {
	st := &State{Workflows: map[string]*Workflow{
		"87":  {Issue: "87", Phase: PhaseRed, Branch: "feat/issue-87"},
		"9":   {Issue: "9", Phase: PhaseMerged, Branch: "feat/issue-9"},
		"100": {Issue: "100", Phase: PhaseStarted, Branch: "feat/issue-100"},
	}}
	b := st.ActiveBranches()
	if !b["refs/heads/feat/issue-87"] || b["refs/heads/feat/issue-9"] || len(b) != 2 {
		t.Errorf("%v", b)
	}
	var order []string
	for _, w := range st.SortedWorkflows() {
		order = append(order, w.Issue)
	}
	if strings.Join(order, ",") != "9,87,100" {
		t.Errorf("order %v", order)
	}
}

func TestParseRefusesWorkflowsGitTDDCannotWrite(t *testing.T) {
	base := "version = 1\n[workflow.87]\nissue = %q\nphase = \"green\"\nbranch = %q\nbase = \"main\"\n"
	tests := []struct {
		issue, branch string
		ok            bool
	}{
		{"87", "feat/issue-87", true},
		{"87\x1bcFAKE", "feat/issue-87", false},
		{"88", "feat/issue-87", false}, // not its key
		{"87", "feat/\x1b]52;c;eA==\x07", false},
		{"87", "feat/\u202eevil", false},
		{"87", "feat/emoji-👨\u200d👩", true},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(fmt.Sprintf(base, tt.issue, tt.branch)), "state.toml")
		if (err == nil) != tt.ok {
			t.Errorf("issue %q branch %q: err %v, want ok %v", tt.issue, tt.branch, err, tt.ok)
		}
	}
}

// Issue 20: whatever a test is called, state.toml stays readable. An id git
// tdd cannot record is refused before anything is written: the file keeps its
// last good version. Every id Update accepts reads back as it was written.
func TestHostileTestIDsNeverMakeStateUnreadable(t *testing.T) {
	s := New(t.TempDir())
	ctx := context.Background()
	start := func(st *State) error {
		st.Workflows = map[string]*Workflow{"87": {Issue: "87", Phase: PhaseStarted, Branch: "feat/issue-87", Base: "main"}}
		return nil
	}
	if err := s.Update(ctx, start); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	red := func(ids ...string) func(*State) error {
		return func(st *State) error {
			st.Workflows["87"].Phase = PhaseRed
			st.Workflows["87"].Red = RedRecord{Commit: strings.Repeat("a", 40), Failing: ids}
			return nil
		}
	}
	for _, id := range []string{
		"t[a\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=" + strings.Repeat("ab", 20) + "\nX-Pad: ]",
		"t[\r]", "t[\x1b[2J]", "t[\x00]", "t[\u0085]", "t[\u2028]", "t[\u2029]", "t[\u202e]", "t[\xff]",
	} {
		err := s.Update(ctx, red("tests/test_ok.py::test_ok", id))
		if err == nil || !strings.Contains(err.Error(), "refusing to write") {
			t.Errorf("%q: err = %v, want a refusal", id, err)
		}
		after, _ := os.ReadFile(s.Path())
		if string(after) != string(before) {
			t.Errorf("%q: the file changed", id)
		}
		if st, err := s.Load(); err != nil || st.Workflows["87"].Phase != PhaseStarted {
			t.Errorf("%q: %v", id, err)
		}
	}
	ids := []string{"tests/test_a.py::test[\"quoted\" 'x' \\ #1]", "tests/ü.py::test[日本]", "tests/test_a.py::test[👨\u200d👩]", "t[a = b]"}
	if err := s.Update(ctx, red(ids...)); err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil || strings.Join(st.Workflows["87"].Red.Failing, "|") != strings.Join(ids, "|") {
		t.Errorf("read back %q, %v; want %q", st.Workflows["87"].Red.Failing, err, ids)
	}
}

func TestContextCopies(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	if err := s.SaveContext("87-2", "docs/lld.md", []byte("# design\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Context("87-2", "docs/lld.md"); err != nil || string(b) != "# design\n" {
		t.Errorf("%q, %v", b, err)
	}
	for _, bad := range [][2]string{{"87", "../x"}, {"87", "/etc/passwd"}, {"..", "x"}, {"a/b", "x"}, {"87", "docs/../../x"}} {
		if err := s.SaveContext(bad[0], bad[1], nil); err == nil {
			t.Errorf("%q %q saved", bad[0], bad[1])
		}
	}
}
