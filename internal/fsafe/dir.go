package fsafe

import (
	"errors"
	"io/fs"
	"path"
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
// is refused. Both parents are opened and checked like any path of the tree,
// and the rename goes through those handles, so no symlink swapped in between
// can lead it elsewhere.
func (t *Tree) RenameDir(from, to string) error {
	src, err := t.openDir(path.Dir(from), false)
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := lstat(src, from); err != nil {
		return err
	} else if !fi.IsDir() {
		return &PathError{from, "is not a directory"}
	}
	dst, err := t.openDir(path.Dir(to), true)
	if err != nil {
		return err
	}
	defer dst.Close()
	if _, err := dst.Lstat(path.Base(to)); err == nil {
		return &PathError{to, "exists already"}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	sf, err := src.Open(".")
	if err != nil {
		return err
	}
	defer sf.Close()
	df, err := dst.Open(".")
	if err != nil {
		return err
	}
	defer df.Close()
	if err := unix.Renameat(int(sf.Fd()), path.Base(from), int(df.Fd()), path.Base(to)); err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	df.Sync()
	sf.Sync()
	return nil
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
