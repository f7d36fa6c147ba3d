package state

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDraftingRoundTrip(t *testing.T) {
	s := New(t.TempDir())
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	err := s.Update(context.Background(), func(st *State) error {
		st.Issues = map[string]*Drafting{"widget-export": {Slug: "widget-export", Brief: "/r/notes/widget-export.md",
			Worktree: "/r", Dir: "docs/audit/active/widget-export", Node: "edit-draft", Drafts: 1, Started: at, Updated: at}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	d := st.Issues["widget-export"]
	if d == nil || d.Node != "edit-draft" || d.Drafts != 1 || !d.Started.Equal(at) || d.Done() {
		t.Fatalf("got %+v", d)
	}
}

func TestHoldIsExclusive(t *testing.T) {
	s := New(t.TempDir())
	release, err := s.Hold("issue-a")
	if err != nil {
		t.Fatal(err)
	}
	// flock is per open file: a second open in this process conflicts like another process would
	if _, err := s.Hold("issue-a"); !errors.Is(err, ErrHeld) {
		t.Fatalf("second hold: %v", err)
	}
	other, err := s.Hold("issue-b")
	if err != nil {
		t.Fatalf("another name: %v", err)
	}
	other()
	release()
	again, err := s.Hold("issue-a")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}
