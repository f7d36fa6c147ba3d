package gitx

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
)

// Text is one version of a file as the diff gate read it.
type Text struct {
	Data    []byte // nil when Over
	Over    bool   // longer than the limit: dropped unread
	Partial bool   // the patch did not hold all of it (a line longer than MaxLine, or more than one hunk)
}

// Texts asks DiffTreesTexts for the two versions of some files, rebuilt from
// the whole-file patch as it streams past, so that no blob is read twice, and
// for a count over the added lines of every file.
type Texts struct {
	Want func(e *RawEntry) bool // nil: none
	// Got receives a wanted file whose text changed, once its patch ends;
	// the texts are its own to keep. It may be called from several
	// goroutines at once (a large change is diffed in shards, see
	// diffSharded), and again for the same file when the shards do not add
	// up and one diff-tree runs after them. It is not called for binary
	// files, nor for renames and mode changes that leave the text as it was.
	Got   func(d *FileDiff, old, new Text) error
	Limit int // bytes a side may have before it is dropped; 0: no limit
	// CountAdded (optional) reads each added line (without its +), with its
	// number in the new version, into the file's Tally (FileDiff.Counted,
	// zero at the file's first line); it may be called from several
	// goroutines at once, like Got, each time for another file.
	CountAdded func(line []byte, number int64, t *Tally)
	Keep       int // lines kept whole up to this many bytes (Visitor.Keep)
}

// Tally is what Texts.CountAdded found in a file's added lines: a count,
// and whatever else it keeps (nil until it keeps something).
type Tally struct {
	N     int64
	Notes any
}

// DiffTreesTexts is DiffTrees that also hands the texts of the files texts
// wants to texts.Got.
func (r *Repo) DiffTreesTexts(ctx context.Context, base, tree string, texts *Texts) ([]FileDiff, error) {
	if diffs, ok, err := r.diffSharded(ctx, base, tree, texts); ok || err != nil {
		return diffs, err
	}
	defer leaveCores(1)()
	return r.diffWhole(ctx, base, tree, nil, texts)
}

// leaveCores keeps the Go runtime off n of its cores while n diff-trees run,
// until the returned func restores it: git diffs in one thread and is the
// critical path of a review, and when our parsing, the definitions and the
// garbage collector spread over every core, git loses time on its own. On 2
// cores, the 5,000-file benchmark's report went from 131-136 ms to 127-129 ms
// (best of 11). Diffs running at once share the setting; the last restores it.
func leaveCores(n int) (restore func()) {
	cores.Lock()
	defer cores.Unlock()
	if cores.users == 0 {
		cores.prev = runtime.GOMAXPROCS(0)
	}
	cores.users++
	if cores.prev > 1 {
		runtime.GOMAXPROCS(max(cores.prev-n, 1))
	}
	return func() {
		cores.Lock()
		defer cores.Unlock()
		if cores.users--; cores.users == 0 {
			runtime.GOMAXPROCS(cores.prev)
		}
	}
}

var cores struct {
	sync.Mutex
	users, prev int
}

// visitor pairs sections with entries and, for the wanted ones, rebuilds
// their texts. A section belongs to the next entry, or to the last one when
// it is the second half of a type change.
func (p *pairing) visitor(texts *Texts) Visitor {
	if texts == nil {
		return Visitor{Done: p.section}
	}
	var tp textPair
	var counted Tally
	var number int64 // of the line in the new version
	current, entry, wanted := (*Section)(nil), -1, false
	return Visitor{
		Keep: texts.Keep,
		Line: func(s *Section, l Line) error {
			if s != current {
				current = s
				i := p.next
				if p.typeHalf {
					i = p.next - 1
				}
				if i != entry && i < len(p.diffs) {
					entry, wanted, counted = i, texts.Want != nil && texts.Want(&p.diffs[i].RawEntry), Tally{}
					tp.reset(texts.Limit)
				}
			}
			if texts.CountAdded != nil {
				switch l.Kind {
				case LineHunk:
					_, _, number, _, _ = ParseHunkHeader(l.Text)
				case LineContext:
					number++
				case LineAdded:
					texts.CountAdded(l.Text[1:], number, &counted)
					number++
				}
			}
			if wanted {
				if l.Kind == LineHunk {
					tp.size(s.OldLines)
				}
				tp.add(l)
			}
			return nil
		},
		Done: func(s *Section) error {
			if err := p.section(s); err != nil {
				return err
			}
			p.diffs[p.next-1].Counted = counted // both halves of a type change
			if !wanted {
				return nil
			}
			tp.section(s)
			if p.typeHalf || tp.binary || tp.hunks == 0 {
				return nil
			}
			old, new := tp.texts()
			return texts.Got(&p.diffs[p.next-1], old, new)
		},
	}
}

// textPair rebuilds the two versions of a file from the lines of its patch,
// which hold the whole file as context: context lines belong to both,
// deletions to the old version, additions to the new.
type textPair struct {
	old, new         []byte
	last             LineKind // the kind of the last hunk line, for "\ No newline"
	limit            int
	oldCut, newCut   bool
	oldOver, newOver bool
	hunks            int
	whole            bool // every section so far had one hunk covering its file
	binary           bool
}

func (t *textPair) reset(limit int) {
	*t = textPair{limit: limit, whole: true}
}

func (t *textPair) add(l Line) {
	text := l.Text
	if len(text) > 0 {
		text = text[1:]
	}
	switch l.Kind {
	case LineContext:
		t.old, t.oldOver = t.put(t.old, t.oldOver, text)
		t.new, t.newOver = t.put(t.new, t.newOver, text)
		t.oldCut, t.newCut = t.oldCut || l.Cut > 0, t.newCut || l.Cut > 0
	case LineDeleted:
		t.old, t.oldOver = t.put(t.old, t.oldOver, text)
		t.oldCut = t.oldCut || l.Cut > 0
	case LineAdded:
		t.new, t.newOver = t.put(t.new, t.newOver, text)
		t.newCut = t.newCut || l.Cut > 0
	case LineNoNewline:
		if t.last != LineAdded && len(t.old) > 0 {
			t.old = t.old[:len(t.old)-1]
		}
		if t.last != LineDeleted && len(t.new) > 0 {
			t.new = t.new[:len(t.new)-1]
		}
		return
	default:
		return
	}
	t.last = l.Kind
}

// size makes room for about the lines of the old version (the new one is
// most often as long) at a guess of 32 bytes a line, so that most files take
// one allocation a side.
func (t *textPair) size(lines int64) {
	n := int(min(lines*32, int64(max(t.limit, 1<<20))))
	grow := func(b []byte) []byte {
		if n <= cap(b)-len(b) {
			return b
		}
		return append(make([]byte, 0, len(b)+n), b...)
	}
	t.old, t.new = grow(t.old), grow(t.new)
}

// put appends a line, unless the text is over the limit already or with it.
func (t *textPair) put(b []byte, over bool, line []byte) ([]byte, bool) {
	if over || t.limit > 0 && len(b)+len(line)+1 > t.limit {
		return nil, true
	}
	return append(append(b, line...), '\n'), false
}

// section records a finished section: a type change has two.
func (t *textPair) section(s *Section) {
	t.hunks += s.Hunks
	t.binary = t.binary || s.Binary
	t.whole = t.whole && (s.Hunks == 0 || s.WholeOld())
}

func (t *textPair) texts() (old, new Text) {
	one := func(data []byte, over, cut bool) Text {
		if over {
			return Text{Over: true}
		}
		return Text{Data: data, Partial: cut || !t.whole}
	}
	return one(t.old, t.oldOver, t.oldCut), one(t.new, t.newOver, t.newCut)
}

// BlobTexts reads blobs whole with one `git cat-file --batch`, one at a time:
// got sees each in order; a blob over limit bytes (when limit > 0) is skipped
// unread and comes as Over.
func (r *Repo) BlobTexts(ctx context.Context, oids []string, limit int, got func(i int, t Text) error) error {
	args := []string{"cat-file", "--batch"}
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return err
	}
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	p, err := start(cmd)
	if err != nil {
		return err
	}
	rerr := readTexts(bufio.NewReaderSize(stdout, 64<<10), len(oids), limit, got)
	io.Copy(io.Discard, stdout)
	if err := p.Wait(); err != nil {
		return commandError(ctx, args, err, stderr.String())
	}
	return rerr
}

func readTexts(out *bufio.Reader, n, limit int, got func(i int, t Text) error) error {
	for i := 0; i < n; i++ {
		h, err := readBatchHeader(out)
		if err != nil {
			return err
		}
		if h.Missing {
			return fmt.Errorf("cat-file: object %s is missing from the repository", h.OID)
		}
		var t Text
		if limit > 0 && h.Size > int64(limit) {
			_, err = io.CopyN(io.Discard, out, h.Size)
			t.Over = true
		} else {
			t.Data = make([]byte, h.Size)
			_, err = io.ReadFull(out, t.Data)
		}
		if err != nil {
			return fmt.Errorf("cat-file: reading %s: %w", h.OID, err)
		}
		if b, err := out.ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("cat-file: object %s is not followed by a newline", h.OID)
		}
		if err := got(i, t); err != nil {
			return err
		}
	}
	return nil
}
