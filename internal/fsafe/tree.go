package fsafe

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
)

// Tree is a working tree opened so that every read and write stays inside it:
// paths go through the gate first, and the files are then opened through an
// os.Root, so a symlink swapped in meanwhile still cannot lead out.
type Tree struct {
	Dir  string // its real path
	root *os.Root
}

// OpenTree opens dir.
func OpenTree(dir string) (*Tree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Tree{Dir: dir, root: root}, nil
}

// Close releases the tree.
func (t *Tree) Close() error { return t.root.Close() }

// Resolve checks p (relative to cwd, or absolute) with the path gate and returns
// it relative to the tree.
func (t *Tree) Resolve(cwd, p string) (string, error) {
	_, rel, err := Resolve(t.Dir, cwd, p)
	return rel, err
}

// Stat describes a file of the tree without following a final symlink out of it.
func (t *Tree) Stat(rel string) (fs.FileInfo, error) { return t.root.Stat(rel) }

// ReadFile reads a file of the tree; ok is false when it does not exist.
func (t *Tree) ReadFile(rel string) (data []byte, mode fs.FileMode, ok bool, err error) {
	fi, err := t.root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, &PathError{rel, "is not a regular file"}
	}
	data, err = t.root.ReadFile(rel)
	return data, fi.Mode().Perm(), err == nil, err
}

// Steps that tests make fail to prove that a failure leaves the old file intact.
var (
	writeData = func(f *os.File, data []byte) error { _, err := f.Write(data); return err }
	rename    = func(r *os.Root, from, to string) error { return r.Rename(from, to) }
)

// Write replaces rel atomically: a temp file in the same directory, fsync, the
// original mode kept (0644 less the umask for a new file), rename, fsync of the
// directory. On any failure the old file is byte-identical and no temp file is
// left. Missing parent directories are created.
func (t *Tree) Write(rel string, data []byte) (err error) {
	dir := path.Dir(rel)
	if err := t.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	perm, keep := fs.FileMode(0o644), false
	if fi, err := t.root.Stat(rel); err == nil {
		if !fi.Mode().IsRegular() {
			return &PathError{rel, "is not a regular file"}
		}
		perm, keep = fi.Mode().Perm(), true
	}
	tmp := path.Join(dir, ".git-tdd-"+randomSuffix()+".tmp") // short: any legal name can be written
	f, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			t.root.Remove(tmp)
		}
	}()
	if err = writeData(f, data); err != nil {
		return err
	}
	if keep {
		if err = f.Chmod(perm); err != nil { // the umask must not narrow it
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = rename(t.root, tmp, rel); err != nil {
		return err
	}
	d, err := t.root.Open(dir)
	if err != nil {
		return nil // written; only the durability of the rename is unconfirmed
	}
	defer d.Close()
	d.Sync()
	return nil
}

// Remove deletes a file of the tree (to undo a file this run created).
func (t *Tree) Remove(rel string) error { return t.root.Remove(rel) }

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
