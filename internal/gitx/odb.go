package gitx

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// The object database, read in process with go-git (DESIGN §2), for the reads
// on hot paths where a git process costs more than the read: HEAD, refs and
// commit objects in the commit hooks. Only positive answers are taken from it:
// a name it cannot resolve, an object it cannot read, a repository it was not
// made for (another hash, reftable, objects elsewhere) go to the git
// executable, which has the last word. The figures that decided each use are
// in odb_test.go's benchmarks.

// unsupportedEnv are the variables with which git finds objects or refs
// somewhere go-git does not look.
var unsupportedEnv = []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH", "GIT_NAMESPACE", "GIT_REF_PARANOIA"}

var stores sync.Map // GitDir+"\x00"+CommonDir → *filesystem.Storage (nil: use git)

// odb is go-git's storage for this repository, or nil when git must answer.
func (r *Repo) odb() *filesystem.Storage {
	if r.GitDir == "" || r.CommonDir == "" {
		return nil
	}
	for _, k := range unsupportedEnv {
		if r.getenv(k) != "" {
			return nil
		}
	}
	key := r.GitDir + "\x00" + r.CommonDir
	if s, ok := stores.Load(key); ok {
		st, _ := s.(*filesystem.Storage)
		return st
	}
	var st *filesystem.Storage
	if supported(r.CommonDir) {
		fs := dotgit.NewRepositoryFilesystem(osfs.New(r.GitDir, osfs.WithBoundOS()), osfs.New(r.CommonDir, osfs.WithBoundOS()))
		st = filesystem.NewStorageWithOptions(fs, cache.NewObjectLRU(4<<20), filesystem.Options{})
	}
	s, _ := stores.LoadOrStore(key, st)
	st, _ = s.(*filesystem.Storage)
	return st
}

// supported reports whether go-git reads this repository as git does: SHA-1
// objects, files for refs, no object directories besides its own.
func supported(common string) bool {
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(common, "objects", "info", "alternates")); err == nil {
		return false
	}
	cfg, err := os.ReadFile(filepath.Join(common, "config"))
	if err != nil {
		return false
	}
	// [extensions] objectFormat = sha256, refStorage, …: anything but the
	// defaults is git's to read
	return !bytes.Contains(bytes.ToLower(cfg), []byte("[extensions]"))
}

// headInProcess is HEAD's commit and its branch ("" when detached) from the
// refs (loose or packed), ok false when go-git cannot say (unborn, or any
// doubt). A branch names a commit: git refuses to commit on one that does not.
func (r *Repo) headInProcess() (commit, branch string, ok bool) {
	st := r.odb()
	if st == nil {
		return "", "", false
	}
	head, err := st.Reference(plumbing.HEAD)
	if err != nil || head == nil {
		return "", "", false
	}
	if head.Type() == plumbing.SymbolicReference {
		branch = head.Target().String()
		if !strings.HasPrefix(branch, "refs/heads/") {
			return "", "", false
		}
	}
	ref, err := storer.ResolveReference(st, plumbing.HEAD)
	if err != nil || ref == nil || ref.Hash().IsZero() {
		return "", "", false
	}
	return ref.Hash().String(), branch, true
}

// branchInProcess is what HEAD names, read from the HEAD file by go-git: a
// branch (born or not), or "" when detached.
func (r *Repo) branchInProcess() (string, bool) {
	st := r.odb()
	if st == nil {
		return "", false
	}
	head, err := st.Reference(plumbing.HEAD)
	switch {
	case err != nil || head == nil:
		return "", false
	case head.Type() == plumbing.HashReference:
		return "", true
	case strings.HasPrefix(head.Target().String(), "refs/heads/"):
		return head.Target().String(), true
	}
	return "", false
}

// commitsInProcess reads loose commit objects by full id; ok is false unless
// every one was read.
func (r *Repo) commitsInProcess(ids []string) (map[string]CommitHeader, bool) {
	raw, ok := r.looseInProcess(ids, plumbing.CommitObject)
	if !ok {
		return nil, false
	}
	out := make(map[string]CommitHeader, len(ids))
	for _, id := range ids {
		c, err := ParseCommit(raw[id])
		if err != nil {
			return nil, false
		}
		c.ID = id
		out[id] = c
	}
	return out, true
}

// blobsInProcess reads loose blobs by full id, as Blobs does (a null id is
// left out); ok is false unless every other one was read.
func (r *Repo) blobsInProcess(ids []string) (map[string][]byte, bool) {
	var want []string
	for _, id := range ids {
		if !IsNullOID(id) {
			want = append(want, id)
		}
	}
	return r.looseInProcess(want, plumbing.BlobObject)
}

// looseInProcess reads loose objects of one type by full id; ok is false
// unless every one was read. go-git decodes a whole pack index to find one
// packed object: slower than a git process (see the benchmarks); a loose one
// is a file read.
func (r *Repo) looseInProcess(ids []string, kind plumbing.ObjectType) (map[string][]byte, bool) {
	st := r.odb()
	if st == nil {
		return nil, false
	}
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		if !isFullOID(id) || !r.isLoose(id) {
			return nil, false
		}
		obj, err := st.EncodedObject(kind, plumbing.NewHash(id))
		if err != nil {
			return nil, false
		}
		rd, err := obj.Reader()
		if err != nil {
			return nil, false
		}
		data, err := io.ReadAll(rd)
		rd.Close()
		if err != nil || int64(len(data)) != obj.Size() || !hashesTo(kind, data, id) {
			return nil, false
		}
		out[id] = data
	}
	return out, true
}

// hashesTo reports whether data, as an object of kind, has the name id.
// Neither go-git nor git checks a loose file against its name when reading
// it, and they look in different places first (go-git the loose file, git the
// packs): a forged loose file next to a packed object would be read here and
// not by git, so only an object that is what its name says is used.
func hashesTo(kind plumbing.ObjectType, data []byte, id string) bool {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)) == id
}

// isLoose reports whether the object is a file of its own, as a commit just
// written is.
func (r *Repo) isLoose(id string) bool {
	_, err := os.Stat(filepath.Join(r.CommonDir, "objects", id[:2], id[2:]))
	return err == nil
}

func isFullOID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// refInProcess is the commit a full ref name (refs/…) or a full id names,
// read by go-git; ok is false when it cannot say.
func (r *Repo) refInProcess(name string) (string, bool) {
	if isFullOID(name) {
		return name, true
	}
	st := r.odb()
	if st == nil || !strings.HasPrefix(name, "refs/") {
		return "", false
	}
	ref, err := storer.ResolveReference(st, plumbing.ReferenceName(name))
	if err != nil || ref == nil || ref.Hash().IsZero() {
		return "", false
	}
	return ref.Hash().String(), true
}

// ancestryWalk bounds mergeBaseInProcess: a branch's own commits since it
// left its base, loose, are a handful.
const ancestryWalk = 256

// mergeBaseInProcess answers git merge-base a b where one is an ancestor of
// the other through loose commits, as it is while a branch's base has not
// moved: that one is the merge base, the only one. ok is false for anything
// else (git answers).
func (r *Repo) mergeBaseInProcess(a, b string) (string, bool) {
	if _, err := os.Stat(filepath.Join(r.CommonDir, "shallow")); !errors.Is(err, fs.ErrNotExist) {
		return "", false // git cuts history at the shallow commits
	}
	ida, ok1 := r.refInProcess(a)
	idb, ok2 := r.refInProcess(b)
	if !ok1 || !ok2 {
		return "", false
	}
	if ida == idb || r.reaches(idb, ida) {
		return ida, true
	}
	if r.reaches(ida, idb) {
		return idb, true
	}
	return "", false
}

// reaches reports whether target is from, or an ancestor of it, through
// loose commits only, within ancestryWalk commits.
func (r *Repo) reaches(from, target string) bool {
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 && len(seen) <= ancestryWalk {
		id := queue[0]
		queue = queue[1:]
		if id == target {
			return true
		}
		commits, ok := r.commitsInProcess([]string{id})
		if !ok {
			return false
		}
		for _, p := range commits[id].Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false
}
