package symbols

import (
	"fmt"
	"path"
	"strings"
)

// MoveKept is how much of a definition's body must arrive elsewhere for it to
// count as moved: a same-named stub in another file does not hide a removal.
const MoveKept = 0.8

// Side is one version of a file as the diff gate read it.
type Side struct {
	Present bool   // the file exists on this side of the change
	Text    []byte // its content, when Problem is ""
	Problem string // why the content could not be read whole ("is over 2 MiB")
}

// Found is a definition with its body.
type Found struct {
	Def
	Body Body
}

// Rename is a definition whose name changed while its body did not.
type Rename struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	NewName string `json:"new_name"`
}

// Ref names the definition before the rename.
func (r Rename) Ref() Ref { return Ref{Name: r.Name, Kind: r.Kind} }

// Move is a definition that left its file for another file of the change.
type Move struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	To   string `json:"to"`
}

// Ref names the definition moved.
func (m Move) Ref() Ref { return Ref{Name: m.Name, Kind: m.Kind} }

// File is what one file of a change defined before it and after it.
type File struct {
	Path    string // after the change: where definitions moved here went
	Lang    Language
	Gone    []Found // defined before and not after, by kind and name
	Gained  []Found // defined after and not before
	Renamed []Rename
	Note    string // why the definitions were not compared, or cannot be read after
	Skipped bool   // the old version could not be read: only the ratio judges the file
}

// CompareFile compares the definitions of a file's two versions; a side that
// is not Present defines nothing. When the old version cannot be read nothing
// is compared; when only the new one cannot, nothing it had can be found.
func CompareFile(path string, lang Language, old, new Side) *File {
	f := &File{Path: path, Lang: lang}
	if lang == None {
		return f
	}
	before, err := read(lang, old)
	if err != nil {
		f.Note, f.Skipped = fmt.Sprintf("the old version %s; only the share of changed lines is judged", err), true
		return f
	}
	after, err := read(lang, new)
	if err != nil {
		f.Note = fmt.Sprintf("the new version %s; its definitions cannot be read", err)
		after = &Source{}
	}
	f.Gone = missing(before, after)
	f.Gained = missing(after, before)
	f.findRenames()
	return f
}

// read parses a side; an absent side is an empty source.
func read(lang Language, s Side) (*Source, error) {
	switch {
	case !s.Present:
		return &Source{}, nil
	case s.Problem != "":
		return nil, fmt.Errorf("%s", s.Problem)
	}
	src, err := Parse(lang, s.Text)
	if err != nil {
		return nil, fmt.Errorf("does not parse (%v)", err)
	}
	return src, nil
}

// missing is what a defines that b does not, by kind and name, with bodies.
func missing(a, b *Source) []Found {
	if sameRefs(a.Defs, b.Defs) { // most changes: no map needed
		return nil
	}
	has := make(map[Ref]bool, len(b.Defs))
	for _, d := range b.Defs {
		has[d.Ref()] = true
	}
	var out []Found
	for i, d := range a.Defs {
		if !has[d.Ref()] {
			body := a.Body(i)
			// the names point into the source; they must not keep it alive
			d.Name, d.Parent = strings.Clone(d.Name), strings.Clone(d.Parent)
			out = append(out, Found{d, body})
		}
	}
	return out
}

func sameRefs(a, b []Def) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// findRenames pairs what went with what came under another name with the very
// same body; each new name takes one. The members of a renamed class went
// with it.
func (f *File) findRenames() {
	taken := make([]bool, len(f.Gained))
	renamed := map[string]bool{}
	gone := f.Gone[:0]
	for _, g := range f.Gone {
		if inAny(g.Parent, renamed) {
			continue
		}
		j := f.twin(g, taken)
		if j < 0 {
			gone = append(gone, g)
			continue
		}
		taken[j] = true
		f.Renamed = append(f.Renamed, Rename{Name: g.Name, Kind: g.Kind, NewName: f.Gained[j].Name})
		if g.Kind == "class" {
			renamed[g.Name] = true
		}
	}
	f.Gone = gone
}

func (f *File) twin(g Found, taken []bool) int {
	for j, h := range f.Gained {
		if !taken[j] && h.Kind == g.Kind && h.Body.Equal(g.Body) {
			return j
		}
	}
	return -1
}

// inAny reports whether the class parent, or one it is nested in, is in set.
func inAny(parent string, set map[string]bool) bool {
	for p := parent; p != ""; p = p[:max(strings.LastIndexByte(p, '.'), 0)] {
		if set[p] {
			return true
		}
	}
	return false
}

// Verdict is what became of one file's definitions. A class stands for its
// members: those that went where it went are not listed again.
type Verdict struct {
	Removed []Ref
	Moved   []Move
	Renamed []Rename
	Note    string
}

// Resolve decides, for every file of a change, which of its definitions were
// removed and which moved: a definition moved when another file of the same
// language gained one of the same kind and name that keeps at least MoveKept
// of its body (the best such file). Names matching an ignore glob are left out.
func Resolve(files []*File, ignore []string) []Verdict {
	gained := map[destKey][]dest{}
	for i, f := range files {
		for _, g := range f.Gained {
			k := destKey{f.Lang, g.Ref()}
			gained[k] = append(gained[k], dest{i, g.Body})
		}
	}
	out := make([]Verdict, len(files))
	for i, f := range files {
		v := &out[i]
		v.Note = f.Note
		removed, movedTo := map[string]bool{}, map[string]string{}
		for _, g := range f.Gone {
			if ignored(ignore, g.Name) {
				continue
			}
			to := bestDest(gained[destKey{f.Lang, g.Ref()}], i, g.Body)
			switch {
			case to < 0:
				if !inAny(g.Parent, removed) {
					v.Removed = append(v.Removed, g.Ref())
				}
				removed[g.Name] = g.Kind == "class"
			case movedTo[g.Parent] != files[to].Path:
				v.Moved = append(v.Moved, Move{Name: g.Name, Kind: g.Kind, To: files[to].Path})
			}
			if to >= 0 {
				movedTo[g.Name] = files[to].Path
			}
		}
		for _, r := range f.Renamed {
			if !ignored(ignore, r.Name) {
				v.Renamed = append(v.Renamed, r)
			}
		}
	}
	return out
}

type destKey struct {
	lang Language
	ref  Ref
}

// dest is a definition a file of the change gained.
type dest struct {
	file int
	body Body
}

// bestDest is the file, other than from, whose gained definition keeps the
// most of body, at least MoveKept; -1 when none does.
func bestDest(ds []dest, from int, body Body) int {
	best, bestKept := -1, MoveKept
	for _, d := range ds {
		if d.file == from {
			continue
		}
		if k := Kept(body, d.body); k >= bestKept && (best < 0 || k > bestKept) {
			best, bestKept = d.file, k
		}
	}
	return best
}

// ignored reports whether a qualified name, or its last part, matches a glob.
func ignored(globs []string, name string) bool {
	short := name[strings.LastIndexByte(name, '.')+1:]
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
		if ok, _ := path.Match(g, short); ok {
			return true
		}
	}
	return false
}
