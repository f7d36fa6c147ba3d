//go:build linux || darwin

package invocation

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// ChangedSince reports whether any of files changed at or after t (or may
// have): a file's status change time, which every write, rename over it or
// change of its times sets to the present, and nobody can set back; for a
// file that does not exist, its directory's (one removed or renamed away
// changes it), unless that directory is one of busy, which change for other
// reasons (the git directory, where git itself writes during a commit). A
// file that cannot be examined counts as changed.
func ChangedSince(files []string, t time.Time, busy ...string) bool {
	for i, d := range busy {
		busy[i] = filepath.Clean(d)
	}
	for _, f := range files {
		changed, err := ctimeAfter(f, t)
		if errors.Is(err, fs.ErrNotExist) && !slices.Contains(busy, filepath.Dir(f)) {
			changed, err = ctimeAfter(filepath.Dir(f), t)
			if errors.Is(err, fs.ErrNotExist) {
				continue // nor its directory: nothing was there to change
			}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) || changed {
			return true
		}
	}
	return false
}

func ctimeAfter(path string, t time.Time) (bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return false, fs.ErrNotExist
		}
		return false, err
	}
	return !time.Unix(st.Ctim.Unix()).Before(t), nil
}
