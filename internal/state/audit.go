package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// AuditEntry is one line of audit.jsonl: an operation that changed, or refused to
// change, something.
type AuditEntry struct {
	Time       time.Time `json:"time"`
	Command    string    `json:"command"`
	Issue      string    `json:"issue,omitempty"`
	Path       string    `json:"path,omitempty"`
	Tree       string    `json:"tree,omitempty"`
	Parent     string    `json:"parent,omitempty"`
	Before     *Content  `json:"before,omitempty"`
	After      *Content  `json:"after,omitempty"`
	Strategy   string    `json:"strategy,omitempty"`
	Flagged    []string  `json:"flagged,omitempty"`
	ApprovedBy string    `json:"approved_by"` // "tty", "force" or ""
	Outcome    string    `json:"outcome"`
	Detail     string    `json:"detail,omitempty"`
}

// Content identifies a file's content in the audit log.
type Content struct {
	SHA256 string `json:"sha256"`
	Lines  int64  `json:"lines"`
	Bytes  int64  `json:"bytes"`
}

// Describe returns the audit description of data with the given line count.
func Describe(data []byte, lines int64) *Content {
	sum := sha256.Sum256(data)
	return &Content{SHA256: hex.EncodeToString(sum[:]), Lines: lines, Bytes: int64(len(data))}
}

// AuditPath is audit.jsonl.
func (s *Store) AuditPath() string { return filepath.Join(s.Dir, "audit.jsonl") }

// Audit appends e to the log, under the state lock so that lines never interleave.
func (s *Store) Audit(ctx context.Context, e AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(s.AuditPath(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
