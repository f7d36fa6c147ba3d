package gitx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// RawEntry is one record of `git diff-tree --raw -z`: the exact paths, modes,
// object ids and status of a changed file.
type RawEntry struct {
	OldMode, NewMode uint32
	OldOID, NewOID   string
	Status           byte // A C D M R T U X
	Score            int  // similarity of a rename or copy
	OldPath, Path    string
}

// Mode bits of the entries git stores in trees.
const (
	ModeRegular = 0o100644
	ModeExec    = 0o100755
	ModeSymlink = 0o120000
	ModeGitlink = 0o160000
)

// IsBlobMode reports whether mode holds a blob (a file or a symlink).
func IsBlobMode(m uint32) bool { return m == ModeRegular || m == ModeExec || m == ModeSymlink }

// ParseRaw parses the output of `git diff-tree -r -z --raw --no-abbrev`.
func ParseRaw(b []byte) ([]RawEntry, error) {
	return readRaw(bufio.NewReader(bytes.NewReader(b)))
}

// readRaw reads -z raw records up to the end of the input, or up to the empty
// record that separates them from a patch when -p is given too.
func readRaw(br *bufio.Reader) ([]RawEntry, error) {
	var out []RawEntry
	for {
		meta, err := br.ReadBytes(0)
		if err == io.EOF && len(meta) == 0 {
			return out, nil
		}
		if err == io.EOF {
			return nil, fmt.Errorf("raw diff: record without a path: %q", clip(meta))
		}
		if err != nil {
			return nil, err
		}
		meta = meta[:len(meta)-1]
		if len(meta) == 0 {
			return out, nil // the separator before the patch
		}
		e, err := parseRawMeta(meta)
		if err != nil {
			return nil, err
		}
		npaths := 1
		if e.Status == 'R' || e.Status == 'C' {
			npaths = 2
		}
		var paths [2]string
		for i := 0; i < npaths; i++ {
			p, err := br.ReadBytes(0)
			if err != nil || len(p) <= 1 {
				return nil, fmt.Errorf("raw diff: record %q lacks a path", meta)
			}
			paths[i] = string(p[:len(p)-1])
		}
		e.OldPath, e.Path = paths[0], paths[npaths-1]
		out = append(out, e)
	}
}

// parseRawMeta parses ":100644 100644 <oid> <oid> M" (status with an optional score).
func parseRawMeta(meta []byte) (RawEntry, error) {
	var e RawEntry
	f := bytes.Fields(meta)
	if len(f) != 5 || len(meta) == 0 || meta[0] != ':' {
		return e, fmt.Errorf("raw diff: malformed record %q", clip(meta))
	}
	om, err1 := strconv.ParseUint(string(f[0][1:]), 8, 32)
	nm, err2 := strconv.ParseUint(string(f[1]), 8, 32)
	if err1 != nil || err2 != nil || !isHex(f[2]) || !isHex(f[3]) || len(f[4]) == 0 {
		return e, fmt.Errorf("raw diff: malformed record %q", clip(meta))
	}
	e.OldMode, e.NewMode = uint32(om), uint32(nm)
	e.OldOID, e.NewOID = string(f[2]), string(f[3])
	e.Status = f[4][0]
	if len(f[4]) > 1 {
		s, err := strconv.Atoi(string(f[4][1:]))
		if err != nil {
			return e, fmt.Errorf("raw diff: malformed status %q", f[4])
		}
		e.Score = s
	}
	switch e.Status {
	case 'A', 'C', 'D', 'M', 'R', 'T':
		return e, nil
	}
	return e, fmt.Errorf("raw diff: unexpected status %q", f[4])
}

func isHex(b []byte) bool {
	if len(b) < 40 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// IsNullOID reports whether oid is all zeros (the missing side of an add or delete).
func IsNullOID(oid string) bool {
	for i := 0; i < len(oid); i++ {
		if oid[i] != '0' {
			return false
		}
	}
	return oid != ""
}
