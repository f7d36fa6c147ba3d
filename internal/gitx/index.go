package gitx

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
)

// IndexInfo is what an index file says, read without git: the tree of the
// whole index from its cache-tree extension ("" when git has not computed it
// since the last change), the entries flagged assume-unchanged and
// skip-worktree, and the .gitattributes files.
type IndexInfo struct {
	Tree             string
	Assumed, Skipped []string
	Attributes       []TreeEntry
}

const sha1Size = 20

var attributesName = []byte(AttributesFile)

// ParseIndex reads a SHA-1 index file of version 2, 3 or 4. ok is false for
// whatever it does not fully understand — a checksum that does not verify or
// is not written, a split or sparse index, an unknown required extension,
// unmerged entries, another hash — and then git must read it.
func ParseIndex(b []byte) (info IndexInfo, ok bool) {
	return parseIndex(b, nil)
}

// indexEntry is one entry of an index file, as the file holds it.
type indexEntry struct {
	mode uint32
	oid  []byte // sha1Size bytes
	path []byte
	ext  uint16 // the extended flags (version 3 and up)
}

// intentToAdd is the extended flag of an entry git add -N made: in the
// index, in no tree.
const intentToAdd = 0x2000

// parseIndex is ParseIndex, which also gives each entry, in the file's order,
// to each when it is not nil.
func parseIndex(b []byte, each func(indexEntry)) (info IndexInfo, ok bool) {
	if len(b) < 12+sha1Size || string(b[:4]) != "DIRC" {
		return info, false
	}
	body, sum := b[:len(b)-sha1Size], b[len(b)-sha1Size:]
	if want := sha1.Sum(body); !bytes.Equal(sum, want[:]) {
		return info, false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return info, false
	}
	n := binary.BigEndian.Uint32(b[8:12])
	pos, prev := 12, []byte(nil)
	for i := uint32(0); i < n; i++ {
		var name []byte
		var flags, ext uint16
		if pos+62 > len(body) {
			return info, false
		}
		start := pos
		flags = binary.BigEndian.Uint16(body[pos+60:])
		p := pos + 62
		if flags&0x4000 != 0 {
			if version < 3 || p+2 > len(body) {
				return info, false
			}
			ext = binary.BigEndian.Uint16(body[p:])
			p += 2
		}
		if flags&0x3000 != 0 {
			return info, false // an unmerged entry: there is no tree
		}
		if version == 4 {
			strip, w := binary.Uvarint(body[p:])
			if w <= 0 || strip > uint64(len(prev)) {
				return info, false
			}
			end := bytes.IndexByte(body[p+w:], 0)
			if end < 0 {
				return info, false
			}
			name = append(append([]byte{}, prev[:len(prev)-int(strip)]...), body[p+w:p+w+end]...)
			pos = p + w + end + 1
		} else {
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return info, false
			}
			name = body[p : p+end]
			pos += (p - pos + end + 8) &^ 7
		}
		if pos > len(body) {
			return info, false
		}
		if flags&0x8000 != 0 {
			info.Assumed = append(info.Assumed, string(name))
		}
		if ext&0x4000 != 0 {
			info.Skipped = append(info.Skipped, string(name))
		}
		if each != nil {
			each(indexEntry{mode: binary.BigEndian.Uint32(body[start+24:]), oid: body[start+40 : start+60], path: name, ext: ext})
		}
		if bytes.HasSuffix(name, attributesName) && IsAttributesFile(string(name)) {
			info.Attributes = append(info.Attributes, TreeEntry{Mode: binary.BigEndian.Uint32(body[start+24:]),
				Type: "blob", OID: hex.EncodeToString(body[start+40 : start+60]), Path: string(name)})
		}
		prev = name
	}
	for pos < len(body) {
		if pos+8 > len(body) {
			return info, false
		}
		sig, size := string(body[pos:pos+4]), int(binary.BigEndian.Uint32(body[pos+4:]))
		data := body[pos+8:]
		if size > len(data) {
			return info, false
		}
		data = data[:size]
		switch {
		case sig == "TREE":
			if info.Tree, ok = rootTree(data); !ok {
				return info, false
			}
		case sig[0] < 'A' || sig[0] > 'Z':
			return info, false // required (link, sdir, …): not ours to skip
		}
		pos += 8 + size
	}
	return info, true
}

// rootTree reads the first entry of a cache-tree extension, the whole
// index's: "" (the root's path) NUL, entry count, space, subtree count, LF,
// then the tree id when the count is not -1 (invalidated).
func rootTree(data []byte) (string, bool) {
	if len(data) == 0 || data[0] != 0 {
		return "", false
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return "", false
	}
	count, _, found := bytes.Cut(data[1:nl], []byte(" "))
	if !found {
		return "", false
	}
	entries, err := strconv.Atoi(string(count))
	if err != nil {
		return "", false
	}
	if entries < 0 {
		return "", true
	}
	if nl+1+sha1Size > len(data) {
		return "", false
	}
	return hex.EncodeToString(data[nl+1 : nl+1+sha1Size]), true
}

// readIndex parses the index git would use here (GIT_INDEX_FILE, as git sets it
// in hooks, or this working tree's); ok is false when git must read it.
func (r *Repo) readIndex(ctx context.Context) (IndexInfo, bool) {
	path, err := r.indexFile(ctx)
	if err != nil {
		return IndexInfo{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return IndexInfo{}, false
	}
	return ParseIndex(data)
}

// IndexTree is the tree a commit of the index would record: the index's own
// cache-tree when git has kept it valid (git commits exactly that tree), or
// else what git write-tree writes. A commit runs several hooks that each need
// it; reading it costs no process.
func (r *Repo) IndexTree(ctx context.Context) (string, error) {
	tree, _, _, err := r.IndexTreeAttributes(ctx)
	return tree, err
}

// IndexTreeAttributes is IndexTree and the .gitattributes files of that
// tree as the index lists them; known is false when only git can read the
// index (a split or sparse index, another version), and then attrs says nothing.
func (r *Repo) IndexTreeAttributes(ctx context.Context) (tree string, attrs []TreeEntry, known bool, err error) {
	info, ok := r.readIndex(ctx)
	if ok && info.Tree != "" {
		return info.Tree, info.Attributes, true, nil
	}
	tree, err = r.WriteTree(ctx)
	return tree, info.Attributes, ok, err
}

// indexFile is the index git would use here: GIT_INDEX_FILE (as git sets it
// in hooks, and a Staged's copy), or this working tree's.
func (r *Repo) indexFile(ctx context.Context) (string, error) {
	if path := r.getenv("GIT_INDEX_FILE"); path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.Top, path)
		}
		return path, nil
	}
	return r.indexPath(ctx)
}

// getenv is the value of k in the environment git runs with.
func (r *Repo) getenv(k string) string {
	if r.env == nil {
		return os.Getenv(k)
	}
	v := ""
	for _, kv := range r.env {
		if key, val, ok := bytes.Cut([]byte(kv), []byte("=")); ok && string(key) == k {
			v = string(val)
		}
	}
	return v
}
