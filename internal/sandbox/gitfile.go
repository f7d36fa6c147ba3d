package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// GitFile is a linked worktree's .git file as it was before a confined
// program ran. Landlock cannot keep it read-only in a writable worktree (a
// directory's rights cover all it holds), and a .git file the program rewrote
// would send git-tdd's next git command to a git dir of the program's making,
// whose configuration runs programs (core.fsmonitor, hooks) outside the
// sandbox. Restore puts it back once the program has ended, before git runs
// there again.
type GitFile struct {
	path string
	data []byte
}

// ReadGitFile reads worktree/.git, which must be a file naming a git dir.
func ReadGitFile(worktree string) (GitFile, error) {
	path := filepath.Join(worktree, ".git")
	fi, err := os.Lstat(path)
	if err != nil {
		return GitFile{}, fmt.Errorf("sandbox: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return GitFile{}, fmt.Errorf("sandbox: %s is not a linked worktree's .git file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return GitFile{}, fmt.Errorf("sandbox: %w", err)
	}
	if !bytes.HasPrefix(data, []byte("gitdir: ")) {
		return GitFile{}, fmt.Errorf("sandbox: %s names no git dir", path)
	}
	return GitFile{path: path, data: data}, nil
}

// Restore reports whether the .git file changed, and if so puts it back:
// whatever took its place (a file, a link, a directory) is removed.
func (g GitFile) Restore() (changed bool, err error) {
	if fi, err := os.Lstat(g.path); err == nil && fi.Mode().IsRegular() {
		if data, err := os.ReadFile(g.path); err == nil && bytes.Equal(data, g.data) {
			return false, nil
		}
	}
	if err := os.RemoveAll(g.path); err != nil {
		return true, fmt.Errorf("sandbox: restoring %s: %w", g.path, err)
	}
	if err := os.WriteFile(g.path, g.data, 0o644); err != nil {
		return true, fmt.Errorf("sandbox: restoring %s: %w", g.path, err)
	}
	return true, nil
}
