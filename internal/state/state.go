// Package state keeps the per-repository state file and audit log under the common
// git directory, so that every worktree shares them; updates are locked and atomic.
package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/git-tdd/git-tdd/internal/atomicfile"
)

// FileVersion is the schema of state.toml this build reads and writes.
const FileVersion = 1

// State is everything state.toml holds.
type State struct {
	Version   int                  `toml:"version"`
	Approvals []Approval           `toml:"approval"`
	Reviewed  []Reviewed           `toml:"reviewed"`
	Workflows map[string]*Workflow `toml:"workflow"`
	Issues    map[string]*Drafting `toml:"issue"` // git tdd issue's workflows, by slug
}

// Reviewed is a commit that landed with an approval: its approval was consumed by
// the commit, and the commit id (which nobody can forge) now vouches for it, so
// that a branch may later fast-forward to it under --strict.
type Reviewed struct {
	Commit string    `toml:"commit"`
	Tree   string    `toml:"tree"`
	Time   time.Time `toml:"time"` // when the approval was given
}

// maxReviewed bounds the reviewed commits kept; the oldest go first.
const maxReviewed = 2000

// Consume turns the approval of tree on one of parents into a reviewed commit; it
// reports whether there was such an approval.
func (s *State) Consume(commit, tree string, parents []string) bool {
	for _, p := range parents {
		if a := s.FindApproval(tree, p); a != nil {
			at := a.Time
			s.RemoveApproval(tree, p)
			s.Reviewed = append(s.Reviewed, Reviewed{Commit: commit, Tree: tree, Time: at})
			if n := len(s.Reviewed); n > maxReviewed {
				s.Reviewed = append([]Reviewed(nil), s.Reviewed[n-maxReviewed:]...)
			}
			return true
		}
	}
	return false
}

// IsReviewed reports whether commit landed with an approval.
func (s *State) IsReviewed(commit string) bool {
	_, ok := s.ReviewedAt(commit)
	return ok
}

// ReviewedAt returns when the approval of a reviewed commit was given.
func (s *State) ReviewedAt(commit string) (time.Time, bool) {
	for i := len(s.Reviewed) - 1; i >= 0; i-- {
		if s.Reviewed[i].Commit == commit {
			return s.Reviewed[i].Time, true
		}
	}
	return time.Time{}, false
}

// Approval is a human's APPROVE of one tree, reviewed as a change on one commit.
type Approval struct {
	Tree    string    `toml:"tree" json:"tree"`
	Parent  string    `toml:"parent" json:"parent"` // the commit reviewed on; "" before the first commit
	Time    time.Time `toml:"time" json:"time"`
	Message string    `toml:"message,omitempty" json:"message"`
	Flagged []string  `toml:"flagged" json:"flagged"`
	By      string    `toml:"by" json:"by"`         // "tty": typed on the controlling terminal
	Source  string    `toml:"source" json:"source"` // the command that asked: "review", "hook", "merge"
}

// maxApprovals bounds the list; the oldest unused approvals go first.
const maxApprovals = 100

// FindApproval returns the approval of tree on parent, or nil.
func (s *State) FindApproval(tree, parent string) *Approval {
	for i := range s.Approvals {
		if a := &s.Approvals[i]; a.Tree == tree && a.Parent == parent {
			return a
		}
	}
	return nil
}

// AddApproval records a, replacing an earlier approval of the same tree and parent.
func (s *State) AddApproval(a Approval) {
	a.Message = CleanPath(a.Message)
	for i := range a.Flagged {
		a.Flagged[i] = CleanPath(a.Flagged[i])
	}
	s.RemoveApproval(a.Tree, a.Parent)
	s.Approvals = append(s.Approvals, a)
	if n := len(s.Approvals); n > maxApprovals {
		s.Approvals = append([]Approval(nil), s.Approvals[n-maxApprovals:]...)
	}
}

// RemoveApproval drops the approval of tree on parent; it reports whether there was one.
func (s *State) RemoveApproval(tree, parent string) bool {
	for i := range s.Approvals {
		if s.Approvals[i].Tree == tree && s.Approvals[i].Parent == parent {
			s.Approvals = append(s.Approvals[:i], s.Approvals[i+1:]...)
			return true
		}
	}
	return false
}

// CorruptError is a state file that cannot be read; it is never silently reset.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt state file %s: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Store is the tdd directory under the common git dir.
type Store struct {
	Dir string
}

// New returns the store of the repository whose common git dir is commonDir.
func New(commonDir string) *Store {
	return &Store{Dir: filepath.Join(commonDir, "tdd")}
}

// Path is state.toml.
func (s *Store) Path() string { return filepath.Join(s.Dir, "state.toml") }

// Load reads the state. Writers replace the file by rename, so an unlocked read
// sees one whole version; a missing file is the empty state.
func (s *Store) Load() (*State, error) {
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: FileVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data, s.Path())
}

// Parse decodes state.toml strictly: unknown keys and newer versions are errors.
func Parse(data []byte, path string) (*State, error) {
	st := &State{}
	md, err := toml.Decode(string(data), st)
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("unknown key %q", und[0].String())}
	}
	switch {
	case st.Version == 0 && len(bytes.TrimSpace(data)) == 0:
		st.Version = FileVersion
	case st.Version > FileVersion:
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("version %d was written by a newer git-tdd (this one reads %d)", st.Version, FileVersion)}
	case st.Version < 1:
		return nil, &CorruptError{Path: path, Err: errors.New("missing or invalid version")}
	}
	if err := st.check(); err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	return st, nil
}

// check refuses a state git tdd could not have written. Parse applies it to
// what it reads and Update to what it would write, so that a state it writes
// is always one it reads back, whatever a test or a file is called.
func (st *State) check() error {
	for i, a := range st.Approvals {
		if a.Tree == "" {
			return fmt.Errorf("approval %d has no tree", i+1)
		}
	}
	keys := make([]string, 0, len(st.Workflows))
	for key := range st.Workflows {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		w := st.Workflows[key]
		if w == nil {
			return fmt.Errorf("workflow %q is empty", key)
		}
		if err := w.check(key); err != nil {
			return err
		}
		w.Name = key
	}
	return nil
}

// Encode writes the state as TOML.
func Encode(st *State) ([]byte, error) {
	st.Version = FileVersion
	var buf bytes.Buffer
	buf.WriteString("# git-tdd state: workflows and approvals of this repository. Written by git tdd and git diffgate.\n")
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Update applies fn to the current state under the lock and writes the result
// atomically. Two commands at once never lose an update. If fn fails, nothing is written.
func (s *Store) Update(ctx context.Context, fn func(*State) error) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := s.Load()
	if err != nil {
		return err
	}
	if err := fn(st); err != nil {
		return err
	}
	if err := st.check(); err != nil {
		return fmt.Errorf("refusing to write %s, which could not be read back: %w", s.Path(), err)
	}
	data, err := Encode(st)
	if err != nil {
		return err
	}
	return atomicfile.Write(s.Path(), data, 0o644)
}

func (s *Store) ensureDir() error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", s.Dir, err)
	}
	return nil
}

// lockTimeout bounds the wait for another command's update (they take milliseconds;
// nobody holds the lock while waiting for a human).
const lockTimeout = 10 * time.Second

func (s *Store) lock(ctx context.Context) (func(), error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	path := filepath.Join(s.Dir, "lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockTimeout)
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if ok {
			return func() { unlockFile(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%s is held by another git tdd or git diffgate command; try again when it has finished", path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// CleanPath makes text safe to store in TOML, which only holds UTF-8; state keeps
// paths and messages for people to read, the tree ids are what bind.
func CleanPath(p string) string { return strings.ToValidUTF8(p, "\uFFFD") }
