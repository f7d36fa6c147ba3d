package gitx

import (
	"bytes"
	"encoding/hex"
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Trees read in process: a gate diffs the tree it just staged (loose, as git
// write-tree wrote it) against its fork point's, and reads the configuration
// there; the commits of a workflow are recent, and loose until git packs
// them. A git process costs milliseconds on the way to the tests; a loose
// object is a file read. Where any object needed is not loose, git answers.

// nullOID is the id raw output gives the missing side of an addition or a
// deletion.
const nullOID = "0000000000000000000000000000000000000000"

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode uint32
	name string
	oid  string
}

// parseTree reads a tree object's entries: "<octal mode> <name>\0<20-byte
// id>", in git's order.
func parseTree(data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || len(data) < nul+21 {
			return nil, errors.New("a malformed tree object")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		name := string(data[sp+1 : nul])
		if err != nil || name == "" || strings.Contains(name, "/") {
			return nil, errors.New("a malformed tree entry")
		}
		out = append(out, treeEntry{mode: uint32(mode), name: name, oid: hex.EncodeToString(data[nul+1 : nul+21])})
		data = data[nul+21:]
	}
	return out, nil
}

// isTree reports whether a tree entry's mode is a tree's.
func isTree(mode uint32) bool { return mode&0o170000 == 0o040000 }

// treeInProcess reads a loose tree object.
func (r *Repo) treeInProcess(id string) ([]treeEntry, bool) {
	raw, ok := r.looseInProcess([]string{id}, plumbing.TreeObject)
	if !ok {
		return nil, false
	}
	entries, err := parseTree(raw[id])
	return entries, err == nil
}

// rootTreeInProcess is the tree a full id names: itself, or a loose
// commit's tree.
func (r *Repo) rootTreeInProcess(id string) ([]treeEntry, bool) {
	if entries, ok := r.treeInProcess(id); ok {
		return entries, true
	}
	commits, ok := r.commitsInProcess([]string{id})
	if !ok {
		return nil, false
	}
	return r.treeInProcess(commits[id].Tree)
}

// changedBlobsInProcess is ChangedBlobs from loose objects: what
// `git diff-tree -r --raw --no-renames` lists, in its order; ok is false
// when an object it needs is not loose.
func (r *Repo) changedBlobsInProcess(a, b string) ([]RawEntry, bool) {
	if !isFullOID(a) || !isFullOID(b) {
		return nil, false
	}
	ta, ok := r.rootTreeInProcess(a)
	if !ok {
		return nil, false
	}
	tb, ok := r.rootTreeInProcess(b)
	if !ok {
		return nil, false
	}
	var out []RawEntry
	if !r.diffTrees("", ta, tb, &out) {
		return nil, false
	}
	// git lists paths in tree order, which for whole paths is byte order
	slices.SortFunc(out, func(x, y RawEntry) int { return strings.Compare(x.Path, y.Path) })
	return out, true
}

// diffTrees appends the differences between two trees under prefix.
func (r *Repo) diffTrees(prefix string, a, b []treeEntry, out *[]RawEntry) bool {
	key := func(e treeEntry) string { // git sorts a tree as if its name ended in "/"
		if isTree(e.mode) {
			return e.name + "/"
		}
		return e.name
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && key(a[i]) < key(b[j]):
			if !r.side(prefix, a[i], true, out) {
				return false
			}
			i++
		case i == len(a) || key(b[j]) < key(a[i]):
			if !r.side(prefix, b[j], false, out) {
				return false
			}
			j++
		default:
			x, y := a[i], b[j]
			i, j = i+1, j+1
			if x.oid == y.oid && x.mode == y.mode {
				continue
			}
			if isTree(x.mode) {
				sa, ok1 := r.treeInProcess(x.oid)
				sb, ok2 := r.treeInProcess(y.oid)
				if !ok1 || !ok2 || !r.diffTrees(prefix+x.name+"/", sa, sb, out) {
					return false
				}
				continue
			}
			status := byte('M')
			if x.mode&0o170000 != y.mode&0o170000 {
				status = 'T'
			}
			*out = append(*out, RawEntry{OldMode: x.mode, NewMode: y.mode, OldOID: x.oid, NewOID: y.oid, Status: status, OldPath: prefix + x.name, Path: prefix + x.name})
		}
	}
	return true
}

// side appends an entry only one tree has, every blob below it if it is a
// tree: deleted when it is the old tree's.
func (r *Repo) side(prefix string, e treeEntry, deleted bool, out *[]RawEntry) bool {
	if isTree(e.mode) {
		sub, ok := r.treeInProcess(e.oid)
		if !ok {
			return false
		}
		for _, s := range sub {
			if !r.side(prefix+e.name+"/", s, deleted, out) {
				return false
			}
		}
		return true
	}
	re := RawEntry{OldOID: nullOID, NewMode: e.mode, NewOID: e.oid, Status: 'A', OldPath: prefix + e.name, Path: prefix + e.name}
	if deleted {
		re = RawEntry{OldMode: e.mode, OldOID: e.oid, NewOID: nullOID, Status: 'D', OldPath: prefix + e.name, Path: prefix + e.name}
	}
	*out = append(*out, re)
	return true
}

// fileInProcess is FileAt from loose objects, for a full commit or tree id:
// known is false when an object it needs is not loose (git answers).
func (r *Repo) fileInProcess(rev, name string) (data []byte, ok, known bool) {
	if !isFullOID(rev) || name == "" || path.Clean(name) != name || path.IsAbs(name) || strings.HasPrefix(name, "../") {
		return nil, false, false // git's to read
	}
	entries, found := r.rootTreeInProcess(rev)
	if !found {
		return nil, false, false
	}
	parts := strings.Split(name, "/")
	for n, part := range parts {
		i := slices.IndexFunc(entries, func(e treeEntry) bool { return e.name == part })
		if i < 0 {
			return nil, false, true // the tree was read: it has no such entry
		}
		e := entries[i]
		if n < len(parts)-1 {
			if !isTree(e.mode) {
				return nil, false, true
			}
			if entries, found = r.treeInProcess(e.oid); !found {
				return nil, false, false
			}
			continue
		}
		if isTree(e.mode) || e.mode == ModeGitlink {
			return nil, false, true // cat-file blob refuses a tree or a submodule
		}
		blobs, found := r.blobsInProcess([]string{e.oid})
		if !found {
			return nil, false, false
		}
		return blobs[e.oid], true, true
	}
	return nil, false, false
}
