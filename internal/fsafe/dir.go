package fsafe

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadDir lists the names in directory rel of the tree; ok is false when it
// does not exist.
func (t *Tree) ReadDir(rel string) (names []string, ok bool, err error) {
	d, err := t.openDir(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer d.Close()
	f, err := d.Open(".")
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	names, err = f.Readdirnames(-1)
	return names, err == nil, err
}

// RenameDir moves directory from to to, creating to's parent; an existing to
// is refused. Both parents are reached one component at a time without
// following any symlink (openat with O_NOFOLLOW from the tree's top), and the
// rename goes through those handles: a symlink put anywhere on either path,
// before or during the call, fails it instead of moving something else.
func (t *Tree) RenameDir(from, to string) error {
	for _, p := range []string{from, to} {
		if name, bad := gitLookAlike(p); bad {
			return &PathError{p, "is inside " + name}
		}
		if d, bad := inside(t.forbidden, filepath.Join(t.real, filepath.FromSlash(p))); bad {
			return &PathError{p, "is inside git's own directory " + d}
		}
	}
	src, err := t.walkNoFollow(path.Dir(from), false)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	var st unix.Stat_t
	if err := unix.Fstatat(src, path.Base(from), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "lstat", Path: from, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return &PathError{from, "is not a directory"}
	}
	dst, err := t.walkNoFollow(path.Dir(to), true)
	if err != nil {
		return err
	}
	defer unix.Close(dst)
	if err := unix.Fstatat(dst, path.Base(to), &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return &PathError{to, "exists already"}
	}
	if err := unix.Renameat(src, path.Base(from), dst, path.Base(to)); err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	unix.Fsync(dst)
	unix.Fsync(src)
	return nil
}

// walkNoFollow opens directory rel of the tree, creating missing components
// if create is set, refusing any component that is a symlink.
func (t *Tree) walkNoFollow(rel string, create bool) (int, error) {
	fd, err := unix.Open(t.real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil || rel == "." {
		return fd, err
	}
	done := ""
	for _, c := range strings.Split(rel, "/") {
		done = path.Join(done, c)
		if create {
			if err := unix.Mkdirat(fd, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: done, Err: err}
			}
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, &PathError{done, "is a symlink, or not a directory"}
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: done, Err: err}
		}
		fd = next
	}
	return fd, nil
}

// NoSymlinks refuses rel when one of its components that exist is a symlink:
// a folder the tree moves or commits must be where its name says, even when a
// symlink would keep it inside the tree.
func (t *Tree) NoSymlinks(rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := t.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &PathError{p, "is a symlink"}
		}
	}
	return nil
}
