package state

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-tdd/git-tdd/internal/atomicfile"
)

// The design and context files a run was given are kept in the workflow's
// record as they were read, under tdd/context/<workflow>/<path>: every prompt
// sends these bytes, whatever becomes of the files the human named. The
// common git dir is nothing a confined agent writes.

// contextPath is where the copy of rel is kept for the workflow name.
func (s *Store) contextPath(name, rel string) (string, error) {
	p := filepath.FromSlash(rel)
	if !IsIssueName(name) || !filepath.IsLocal(p) {
		return "", fmt.Errorf("%q of workflow %q is no path of a record", rel, name)
	}
	return filepath.Join(s.Dir, "context", name, p), nil
}

// SaveContext keeps data as the workflow's copy of rel.
func (s *Store) SaveContext(name, rel string, data []byte) error {
	p, err := s.contextPath(name, rel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, data, 0o644)
}

// Context is the workflow's copy of rel; an error that is fs.ErrNotExist
// means none was kept.
func (s *Store) Context(name, rel string) ([]byte, error) {
	p, err := s.contextPath(name, rel)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}
