package state

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Drafting is one brief's issue-drafting workflow (git tdd issue, seed 004).
// Its audit folder is the record of what happened; this says where the folder
// is and what only the process that filed the issue knows.
type Drafting struct {
	Slug     string    `toml:"slug"`
	Brief    string    `toml:"brief"`    // the brief's path, as given
	Worktree string    `toml:"worktree"` // the working tree that holds the audit folder
	Dir      string    `toml:"dir"`      // the audit folder, relative to it
	Node     string    `toml:"node"`     // where it stands, for git tdd issue list
	Drafts   int       `toml:"drafts"`
	Verdicts int       `toml:"verdicts"`
	Filing   bool      `toml:"filing,omitempty"` // gh issue create ran without an answer: look for the issue before filing again
	Number   int       `toml:"number,omitempty"`
	URL      string    `toml:"url,omitempty"`
	Commit   string    `toml:"commit,omitempty"` // the commit that holds the audit files
	Started  time.Time `toml:"started"`
	Updated  time.Time `toml:"updated"`
}

// Done reports whether the issue was filed and its audit files committed.
func (d *Drafting) Done() bool { return d.Commit != "" }

// SortedIssues returns the drafting workflows, most recently updated first.
func (s *State) SortedIssues() []*Drafting {
	out := make([]*Drafting, 0, len(s.Issues))
	for _, d := range s.Issues {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].Slug < out[j].Slug
	})
	return out
}

// ErrHeld means another process holds the lock.
var ErrHeld = errors.New("held by another process")

// Hold takes the named long-lived lock (one workflow run at a time) without
// waiting; the kernel releases it when the process dies.
func (s *Store) Hold(name string) (func(), error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		f.Close()
		if err == nil {
			err = ErrHeld
		}
		return nil, err
	}
	return func() { unlockFile(f); f.Close() }, nil
}
