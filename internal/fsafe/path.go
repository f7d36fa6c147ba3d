// Package fsafe keeps file operations inside a working tree: a path gate that
// refuses escapes and git's own directory, and an atomic writer.
package fsafe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PathError is a path the gate refuses; nothing was read or written.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Reason) }

// Resolve returns the absolute, symlink-free path of p (relative to the working
// directory cwd, or absolute) if it lies inside root and outside git's directory.
// The file need not exist: the longest existing ancestor is resolved, so that a
// symlinked directory cannot lead a new file out. rel is the path relative to root.
func Resolve(root, cwd, p string) (abs, rel string, err error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", err
	}
	return resolve(root, realRoot, cwd, p, nil)
}

// resolve is Resolve with the root's real path already known; a path inside
// one of the forbidden directories (real paths: git's own) is refused too.
func resolve(root, realRoot, cwd, p string, forbidden []string) (abs, rel string, err error) {
	if p == "" {
		return "", "", &PathError{p, "empty path"}
	}
	if strings.ContainsRune(p, 0) {
		return "", "", &PathError{p, "a path may not contain a NUL byte"}
	}
	joined := p
	if !filepath.IsAbs(p) {
		joined = filepath.Join(cwd, p)
	}
	joined = filepath.Clean(joined)
	// The path as written must not climb out of the root either, even when a
	// symlink would bring it back.
	if !within(filepath.Clean(root), joined) && !within(realRoot, joined) {
		return "", "", &PathError{p, "outside the repository"}
	}
	real, err := resolveExisting(joined)
	if err != nil {
		return "", "", &PathError{p, err.Error()}
	}
	if !within(realRoot, real) {
		return "", "", &PathError{p, "leads outside the repository through a symlink"}
	}
	if dir, ok := inside(forbidden, real); ok {
		return "", "", &PathError{p, "is inside git's own directory " + dir}
	}
	rel, err = filepath.Rel(realRoot, real)
	if err != nil || rel == "." {
		return "", "", &PathError{p, "is the repository itself, not a file in it"}
	}
	if name, ok := gitLookAlike(rel); ok {
		return "", "", &PathError{p, fmt.Sprintf("%q is git's own directory (or looks like it to some file system)", name)}
	}
	return real, filepath.ToSlash(rel), nil
}

// hfsIgnored drops the code points HFS+ ignores in names (git's is_hfs_dotgit).
func hfsIgnored(r rune) rune {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return -1
	}
	return r
}

// inside reports which of dirs p is in, if any.
func inside(dirs []string, p string) (string, bool) {
	for _, d := range dirs {
		if within(d, p) {
			return d, true
		}
	}
	return "", false
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves the symlinks of the longest existing ancestor of p and
// joins the rest; a final component that is a dangling symlink is refused, since
// writing through it would create its target wherever it points.
func resolveExisting(p string) (string, error) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("is a symlink to nothing")
		}
	}
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// gitLookAlike finds a component that is, or that some file system would take
// for, ".git": any case (.GIT), trailing dots or spaces (".git. "), the NTFS
// short name (GIT~1), an NTFS stream (".git::$INDEX_ALLOCATION"), or with the
// invisible characters HFS+ ignores (".g\u200cit"), as git's own checks do.
func gitLookAlike(rel string) (string, bool) {
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		n := strings.ToLower(strings.Map(hfsIgnored, c))
		if i := strings.IndexByte(n, ':'); i >= 0 {
			n = n[:i]
		}
		n = strings.TrimRight(n, ". ")
		if n == ".git" || n == "git~1" {
			return c, true
		}
	}
	return "", false
}

// SamePath reports whether two paths are the same place, symlinks resolved;
// paths that do not exist are compared as written.
func SamePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
