package fsafe

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Tree is a working tree opened so that every read and write stays inside it
// and out of .git, even against a symlink swapped in after the path gate: each
// directory on the way is opened as an os.Root of its own (no symlink can lead
// out of it), and where it really is is checked before a file in it is touched;
// the file is then read or written through that handle, and a final component
// that has become a symlink is refused.
type Tree struct {
	Dir       string // as given
	real      string // its real path
	root      *os.Root
	forbidden []string // real paths of git's directories: nothing in them is touched
}

// OpenTree opens dir. gitDirs are the repository's git directories (its own
// and the common one): whatever their names, and wherever they are, nothing in
// them is read or written.
func OpenTree(dir string, gitDirs ...string) (*Tree, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var forbidden []string
	for _, d := range gitDirs {
		if d == "" {
			continue
		}
		rd, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, err
		}
		if within(rd, real) {
			return nil, &PathError{dir, "the working tree is inside git's own directory " + rd}
		}
		forbidden = append(forbidden, rd)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Tree{Dir: dir, real: real, root: root, forbidden: forbidden}, nil
}

// Close releases the tree.
func (t *Tree) Close() error { return t.root.Close() }

// Resolve checks p (relative to cwd, or absolute) with the path gate and returns
// it relative to the tree.
func (t *Tree) Resolve(cwd, p string) (string, error) {
	_, rel, err := resolve(t.Dir, t.real, cwd, p, t.forbidden)
	return rel, err
}

// openDir opens directory dir of the tree (slash-separated, "." for the top),
// one component at a time, creating the missing ones if create is set, and
// checks that each is where the path gate allowed it to be.
func (t *Tree) openDir(dir string, create bool) (*os.Root, error) {
	cur, err := t.root.OpenRoot(".")
	if err != nil || dir == "." {
		return cur, err
	}
	for _, c := range strings.Split(dir, "/") {
		if create {
			if err := cur.Mkdir(c, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				cur.Close()
				return nil, err
			}
		}
		next, err := cur.OpenRoot(c)
		if err != nil {
			if fi, lerr := cur.Lstat(c); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				err = &PathError{dir, "goes through the symlink " + c + ", which leads out of the directory that holds it"}
			}
			cur.Close()
			return nil, err
		}
		cur.Close()
		if err := t.check(next, dir); err != nil {
			next.Close()
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// check refuses a directory handle that is not inside the tree, or is inside
// .git: a symlink swapped in between the path gate and the open.
func (t *Tree) check(r *os.Root, dir string) error {
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	real, err := openedPath(f)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil // the handle itself still keeps it inside the tree
	}
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(t.real, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &PathError{dir, "leads outside the repository through a symlink"}
	}
	if name, bad := gitLookAlike(rel); bad {
		return &PathError{dir, "leads into " + name + " through a symlink"}
	}
	if d, bad := inside(t.forbidden, real); bad {
		return &PathError{dir, "leads into git's own directory " + d}
	}
	return nil
}

// lstat describes the final component of rel in its opened directory,
// refusing a symlink: the gate resolved every symlink, so one now was swapped in.
func lstat(d *os.Root, rel string) (fs.FileInfo, error) {
	fi, err := d.Lstat(path.Base(rel))
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &PathError{rel, "has become a symlink"}
	}
	return fi, err
}

// Stat describes a file of the tree.
func (t *Tree) Stat(rel string) (fs.FileInfo, error) {
	d, err := t.openDir(path.Dir(rel), false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return lstat(d, rel)
}

// ReadFile reads a file of the tree; ok is false when it does not exist.
func (t *Tree) ReadFile(rel string) (data []byte, mode fs.FileMode, ok bool, err error) {
	d, err := t.openDir(path.Dir(rel), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	defer d.Close()
	fi, err := lstat(d, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, &PathError{rel, "is not a regular file"}
	}
	f, err := d.Open(path.Base(rel))
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		return nil, 0, false, &PathError{rel, "was replaced while it was being opened"}
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead) // one allocation, not a doubling series
	_, err = b.ReadFrom(f)
	return b.Bytes(), fi.Mode().Perm(), err == nil, err
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
	d, err := t.openDir(path.Dir(rel), true)
	if err != nil {
		return err
	}
	defer d.Close()
	name := path.Base(rel)
	perm, keep := fs.FileMode(0o644), false
	fi, err := lstat(d, rel)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &PathError{rel, "is not a regular file"}
	case err == nil:
		perm, keep = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	removeStale(d)
	tmp := tempPrefix + randomSuffix() + tempSuffix // short: any legal name can be written
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			d.Remove(tmp)
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
	if err = rename(d, tmp, name); err != nil {
		return err
	}
	if dir, err := d.Open("."); err == nil {
		dir.Sync() // written; only the durability of the rename is unconfirmed without it
		dir.Close()
	}
	return nil
}

// The temporary files of a write are named like this; TempPattern excludes
// them (git's info/exclude), so that one left by a killed write is never staged.
const (
	tempPrefix  = ".git-tdd-"
	tempSuffix  = ".tmp"
	TempPattern = tempPrefix + "*" + tempSuffix
)

// staleAfter is how old a temporary file is when no write can be using it.
const staleAfter = 10 * time.Minute

// removeStale deletes the temporary files a killed write left in d.
func removeStale(d *os.Root) {
	f, err := d.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if !strings.HasPrefix(n, tempPrefix) || !strings.HasSuffix(n, tempSuffix) {
			continue
		}
		if fi, err := d.Lstat(n); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleAfter {
			d.Remove(n)
		}
	}
}

// Remove deletes a file of the tree (to undo a file this run created).
func (t *Tree) Remove(rel string) error {
	d, err := t.openDir(path.Dir(rel), false)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := lstat(d, rel); err != nil {
		return err
	}
	return d.Remove(path.Base(rel))
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
