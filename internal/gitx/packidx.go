package gitx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// packIndexes are the version 2 index files of a repository's packs,
// mapped into memory, to tell whether an object is packed without reading
// the packs. They are opened for one use and closed after it: packs come and
// go with git gc.
type packIndexes struct {
	idx   [][]byte // each file's bytes
	packs []string // the pack each describes
	cruft []bool   // whether it is a cruft pack, whose objects are dated one by one (.mtimes)
}

// openPackIndexes maps the index of every pack in the object directory;
// an index that is not version 2 for SHA-1 is an error.
func openPackIndexes(objects string) (*packIndexes, error) {
	dir := filepath.Join(objects, "pack")
	list, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return &packIndexes{}, nil
	}
	if err != nil {
		return nil, err
	}
	p := &packIndexes{}
	for _, e := range list {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		pack := filepath.Join(dir, name+".pack")
		if _, err := os.Stat(pack); err != nil {
			continue // a pack on its way in or out: git does not use it either
		}
		b, err := mapFile(filepath.Join(dir, e.Name()))
		if err != nil {
			p.close()
			return nil, err
		}
		_, err = os.Stat(filepath.Join(dir, name+".mtimes"))
		p.idx, p.packs, p.cruft = append(p.idx, b), append(p.packs, pack), append(p.cruft, err == nil)
		if !validPackIndex(b) {
			p.close()
			return nil, errors.New("gitx: a pack index git-tdd does not read: " + e.Name())
		}
	}
	return p, nil
}

// validPackIndex checks a version 2 index's header and size: the fan-out
// table, then for each object its id, CRC and offset, then two checksums.
func validPackIndex(b []byte) bool {
	if len(b) < 8+256*4+2*sha1Size || !bytes.Equal(b[:8], []byte("\xfftOc\x00\x00\x00\x02")) {
		return false
	}
	n := int(binary.BigEndian.Uint32(b[8+255*4:]))
	return n >= 0 && len(b) >= 8+256*4+n*(sha1Size+8)+2*sha1Size
}

func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 || fi.Size() > 1<<40 {
		return nil, errors.New("gitx: an empty or huge pack index: " + path)
	}
	return syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
}

// find returns a pack that holds the object, other than a cruft pack when
// withCruft is false.
func (p *packIndexes) find(id []byte, withCruft bool) (string, bool) {
	for i, b := range p.idx {
		if (withCruft || !p.cruft[i]) && packHolds(b, id) {
			return p.packs[i], true
		}
	}
	return "", false
}

func (p *packIndexes) has(id []byte) bool {
	_, ok := p.find(id, true)
	return ok
}

// packHolds looks the id up in a version 2 index: the fan-out table gives
// the range of ids that begin with its first byte, sorted.
func packHolds(b, id []byte) bool {
	fan := b[8:]
	lo := 0
	if id[0] > 0 {
		lo = int(binary.BigEndian.Uint32(fan[(int(id[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(fan[int(id[0])*4:]))
	names := b[8+256*4:]
	if lo > hi || hi > int(binary.BigEndian.Uint32(fan[255*4:])) {
		return false // a damaged table: let git say
	}
	k := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(names[(lo+i)*sha1Size:(lo+i+1)*sha1Size], id) >= 0
	})
	return k < hi && bytes.Equal(names[k*sha1Size:(k+1)*sha1Size], id)
}

func (p *packIndexes) close() {
	for _, b := range p.idx {
		syscall.Munmap(b)
	}
	p.idx, p.packs, p.cruft = nil, nil, nil
}
