package gitx

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The index's tree, written in process: a gate stages the working tree and
// writes its tree before every run, and git write-tree is a process (2–3 ms
// on the critical path) for what is, for a few changed directories, a few
// hashes and files. Only what git would write the same way is written here;
// anything else goes to git, which has the last word (writeTreeInProcess).

// builtTree is a tree object made from index entries.
type builtTree struct {
	id    [sha1Size]byte
	body  []byte   // the object's content, without its header
	blobs [][]byte // the ids of the blobs it names (not submodules')
}

// treeModes are the modes git writes in a tree for an index entry's mode.
var treeModes = map[uint32]string{0o100644: "100644", 0o100755: "100755", 0o120000: "120000", 0o160000: "160000"}

// buildTrees makes the trees of an index's entries (in the file's order),
// each directory's before its parent's, the root's last, as git write-tree
// would. ok is false for an index git does not write itself, which git must
// judge: an entry out of order or twice, a file where a directory is, an
// empty path component, a mode git does not write, a null id, or an entry
// added with intent to add.
func buildTrees(entries []indexEntry) (trees []builtTree, ok bool) {
	for i, e := range entries {
		if e.ext&intentToAdd != 0 || treeModes[e.mode] == "" || len(e.oid) != sha1Size || isNull(e.oid) {
			return nil, false
		}
		if i > 0 && bytes.Compare(entries[i-1].path, e.path) >= 0 {
			return nil, false
		}
	}
	if _, ok := buildTree(entries, 0, &trees); !ok {
		return nil, false
	}
	return trees, true
}

// buildTree makes the tree of entries, whose paths share their first base
// bytes (the directory and its slash), after its subtrees.
func buildTree(entries []indexEntry, base int, trees *[]builtTree) ([sha1Size]byte, bool) {
	var t builtTree
	for i := 0; i < len(entries); {
		name := entries[i].path[base:]
		slash := bytes.IndexByte(name, '/')
		if slash < 0 {
			if len(name) == 0 {
				return t.id, false
			}
			e := entries[i]
			t.body = appendTreeEntry(t.body, treeModes[e.mode], name, e.oid)
			if e.mode != 0o160000 {
				t.blobs = append(t.blobs, e.oid)
			}
			i++
			continue
		}
		dir := name[:slash+1]
		if slash == 0 || fileNamed(entries[:i], base, dir[:slash]) {
			return t.id, false
		}
		j := i + 1
		for j < len(entries) && bytes.HasPrefix(entries[j].path[base:], dir) {
			j++
		}
		id, ok := buildTree(entries[i:j], base+slash+1, trees)
		if !ok {
			return id, false
		}
		t.body = appendTreeEntry(t.body, "40000", dir[:slash], id[:])
		i = j
	}
	h := sha1.New()
	h.Write([]byte("tree " + strconv.Itoa(len(t.body)) + "\x00"))
	h.Write(t.body)
	h.Sum(t.id[:0])
	*trees = append(*trees, t)
	return t.id, true
}

// fileNamed reports whether one of the entries before a directory's, at this
// level, is a file of the directory's name: those that sort between them
// all begin with the name.
func fileNamed(before []indexEntry, base int, name []byte) bool {
	for k := len(before) - 1; k >= 0 && bytes.HasPrefix(before[k].path[base:], name); k-- {
		if len(before[k].path)-base == len(name) {
			return true
		}
	}
	return false
}

func appendTreeEntry(b []byte, mode string, name, id []byte) []byte {
	b = append(b, mode...)
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, 0)
	return append(b, id...)
}

func isNull(id []byte) bool {
	for _, c := range id {
		if c != 0 {
			return false
		}
	}
	return true
}

// objectSettings are the configuration words that change how git writes a
// loose object (core.sharedRepository: its permissions; core.fsync and
// core.fsyncObjectFiles: whether it is synced), which only git applies.
var objectSettings = []string{"sharedrepository", "fsync"}

// writeTreeInProcess writes the tree of the index file at path, as git
// write-tree does: the trees that are not in the object database yet (whose
// blobs must be), as loose objects. ok is false, having written nothing
// that matters, whenever git must write it: an index or an entry it does not
// read (see ParseIndex, buildTrees), a repository whose objects it does not
// know where to find (see odb), a setting that changes how objects are
// written, a blob that is missing, or any error.
func (r *Repo) writeTreeInProcess(path string) (string, bool) {
	if r.odb() == nil || r.configMayMention(objectSettings...) {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var entries []indexEntry
	if _, ok := parseIndex(data, func(e indexEntry) { entries = append(entries, e) }); !ok {
		return "", false
	}
	trees, ok := buildTrees(entries)
	if !ok {
		return "", false
	}
	objects := filepath.Join(r.CommonDir, "objects")
	packs, err := openPackIndexes(objects)
	if err != nil {
		return "", false
	}
	defer packs.close()
	db := objectDir{dir: objects, packs: packs}
	for _, t := range trees {
		if db.freshen(t.id[:]) {
			continue
		}
		for _, b := range t.blobs {
			if !db.has(b) {
				return "", false
			}
		}
		if err := db.writeLoose("tree", t.id[:], t.body); err != nil {
			return "", false
		}
	}
	root := trees[len(trees)-1].id
	return hex.EncodeToString(root[:]), true
}

// objectDir is a repository's object directory, for writing.
type objectDir struct {
	dir   string
	packs *packIndexes
}

func (d objectDir) loose(id []byte) string {
	h := hex.EncodeToString(id)
	return filepath.Join(d.dir, h[:2], h[2:])
}

// has reports whether the object is in a pack or loose.
func (d objectDir) has(id []byte) bool {
	if d.packs.has(id) {
		return true
	}
	_, err := os.Lstat(d.loose(id))
	return err == nil
}

// freshen reports whether the object is there, dating its file now as git
// does before it relies on an object it would have written, so that a
// concurrent prune of old unreachable objects spares it; one whose file
// cannot be dated counts as absent, and is written again, and so does one
// only in a cruft pack, whose objects expire by their own dates (git
// 2.37's gc --cruft), not the pack's.
func (d objectDir) freshen(id []byte) bool {
	now := time.Now()
	if pack, ok := d.packs.find(id, false); ok && os.Chtimes(pack, now, now) == nil {
		return true
	}
	return os.Chtimes(d.loose(id), now, now) == nil
}

// writeLoose writes an object as git does: compressed into a temporary file
// beside its place, read-only, then linked into place (renamed where links
// do not work); an object already there is left as it is.
func (d objectDir) writeLoose(kind string, id, body []byte) error {
	final := d.loose(id)
	dir := filepath.Dir(final)
	if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	tmp, err := createTemp(dir, "tmp_obj_", 0o444)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	z, _ := zlib.NewWriterLevel(tmp, zlib.BestSpeed) // core.looseCompression's default
	_, err = z.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	if err == nil {
		_, err = z.Write(body)
	}
	if err == nil {
		err = z.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp.Name(), final)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	return os.Rename(tmp.Name(), final)
}

// createTemp creates a new file in dir named prefix and random letters, with
// mode perm (as the umask leaves it); os.CreateTemp's are 0600.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+rand.Text()[:12])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("gitx: no temporary name free in " + dir)
}
