package gitx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Section is one file of a git patch. go-gitdiff parses its header (names, quoting,
// modes, renames, object ids); its hunks are counted as they stream past and never
// held, so a patch of any size is read in bounded memory.
type Section struct {
	File     *gitdiff.File
	Binary   bool
	Added    int64
	Deleted  int64
	Hunks    int
	OldStart int64 // the first hunk's old start line
	OldLines int64 // the old side's lines over all hunks
	// Shown counts the bytes of the lines a review with ShownContext lines
	// of context prints: every changed line and the context around it,
	// whatever context the patch was made with.
	Shown int64
	shown shownWindow

	// seen counts the bytes of each side read from the top of the file,
	// while they are within the window git looks for a NUL in; -1 once the
	// hunks do not start at the top (a patch with a few lines of context).
	// odd counts the control bytes among them (not tab, CR, FF, VT).
	seen, odd [2]int64
}

// Textual reports whether a binary section is text for the most part: at
// most one control byte in 20 in the window of each side. A NUL makes a
// script "binary" to git; its lines are still for a human to read.
func (s *Section) Textual() bool {
	for i := range s.seen {
		if s.seen[i] < 0 || s.odd[i]*20 > s.seen[i] {
			return false
		}
	}
	return true
}

// binaryWindow is how much of a file git reads to call it binary (a NUL in
// its first 8000 bytes; FIRST_FEW_BYTES in git's xdiff-interface.c).
const binaryWindow = 8000

// sniff looks for a NUL in what a line adds to the top of the sides it is on
// (0 old, 1 new): the patch is asked for with --text, so that attributes
// (binary, -diff) cannot make a text file's content unseen, and binary is
// decided here the way git's own heuristic does, from the bytes.
func (s *Section) sniff(text []byte, cut int64, sides ...int) {
	for _, i := range sides {
		if s.seen[i] < 0 || s.seen[i] >= binaryWindow {
			continue
		}
		w := text[:min(int64(len(text)), binaryWindow-s.seen[i])]
		if bytes.IndexByte(w, 0) >= 0 {
			s.Binary = true
		}
		for _, c := range w {
			if c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v' || c == 0x7f {
				s.odd[i]++
			}
		}
		s.seen[i] += int64(len(text)) + cut + 1
	}
}

// WholeOld reports whether the section's one hunk covers the whole old file, so
// that OldLines is the old file's line count.
func (s *Section) WholeOld() bool {
	return s.Hunks == 1 && (s.OldStart == 1 || (s.OldStart == 0 && s.OldLines == 0))
}

// Name is the section's path: the new name, or the old one for a deletion.
func (s *Section) Name() string {
	if s.File.IsDelete {
		return s.File.OldName
	}
	return s.File.NewName
}

// LineKind says what a line of a patch is.
type LineKind int

// The kinds of patch lines.
const (
	LineHeader    LineKind = iota // diff --git, index, mode, rename, ---/+++ lines
	LineHunk                      // @@ -a,b +c,d @@
	LineContext                   // ' '
	LineAdded                     // '+'
	LineDeleted                   // '-'
	LineNoNewline                 // \ No newline at end of file
	LineBinary                    // the binary marker and its data
)

// Line is one line of a section without its newline. Text keeps at most MaxLine
// bytes (Visitor.Keep, when larger); Cut counts the bytes dropped after them.
type Line struct {
	Kind LineKind
	Text []byte
	Cut  int64
}

// MaxLine is the longest line prefix the scanner keeps.
const MaxLine = 64 << 10

// Visitor receives a patch as it is scanned. Line (optional) sees every line of a
// section once its header is parsed; Done (optional) sees the section when it ends.
// Text is only valid during the call.
type Visitor struct {
	Line func(s *Section, l Line) error
	Done func(s *Section) error
	Keep int // the longest line kept whole, when more than MaxLine (a review shows lines whole)
}

// ScanPatch reads a patch written by `git diff-tree -p` and validates every hunk
// against its header's line counts, as git apply would.
func ScanPatch(r io.Reader, v Visitor) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, MaxLine), keep: max(v.Keep, MaxLine)}
	lr.advance()
	var hdr header
	for lr.ok {
		if !bytes.HasPrefix(lr.line, []byte("diff --git ")) {
			return fmt.Errorf("patch: expected a file header, got %q", clip(lr.line))
		}
		s, err := scanSection(lr, &hdr, v)
		if err != nil {
			return err
		}
		if v.Done != nil {
			if err := v.Done(s); err != nil {
				return err
			}
		}
	}
	return lr.err
}

// header collects a section's header lines; it is reused from section to section.
type header struct {
	buf  []byte
	ends []int // where each line ends in buf
}

func (h *header) line(i int) []byte {
	start := 0
	if i > 0 {
		start = h.ends[i-1] + 1
	}
	return h.buf[start:h.ends[i]]
}

func scanSection(lr *lineReader, hdr *header, v Visitor) (*Section, error) {
	hdr.buf, hdr.ends = hdr.buf[:0], hdr.ends[:0]
	for first := true; lr.ok; first = false {
		if !first && isSectionBoundary(lr.line) {
			break
		}
		if lr.cut > 0 {
			return nil, fmt.Errorf("patch: header line longer than %d bytes", MaxLine)
		}
		hdr.buf = append(hdr.buf, lr.line...)
		hdr.ends = append(hdr.ends, len(hdr.buf))
		hdr.buf = append(hdr.buf, '\n')
		lr.advance()
	}
	if lr.err != nil {
		return nil, lr.err
	}
	files, _, err := gitdiff.Parse(bytes.NewBuffer(hdr.buf)) // a Buffer: go-gitdiff reads it without a bufio copy
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("patch: a file header parsed as %d files: %q", len(files), clip(hdr.line(0)))
	}
	s := &Section{File: files[0]}
	emit := func(k LineKind, text []byte, cut int64) error {
		if v.Line == nil {
			return nil
		}
		return v.Line(s, Line{Kind: k, Text: text, Cut: cut})
	}
	for i := range hdr.ends {
		if err := emit(LineHeader, hdr.line(i), 0); err != nil {
			return nil, err
		}
	}
	if lr.ok && (bytes.HasPrefix(lr.line, []byte("GIT binary patch")) || bytes.HasPrefix(lr.line, []byte("Binary files "))) {
		s.Binary = true
		for lr.ok && !bytes.HasPrefix(lr.line, []byte("diff --git ")) {
			if err := emit(LineBinary, lr.line, lr.cut); err != nil {
				return nil, err
			}
			lr.advance()
		}
		return s, lr.err
	}
	for lr.ok && bytes.HasPrefix(lr.line, []byte("@@ ")) {
		if err := scanHunk(lr, s, emit); err != nil {
			return nil, err
		}
	}
	if s.Binary { // found by sniff: counted as git counts a binary file
		s.Added, s.Deleted, s.OldLines = 0, 0, 0
	}
	if lr.ok && !bytes.HasPrefix(lr.line, []byte("diff --git ")) {
		return nil, fmt.Errorf("patch: %s: unexpected line %q", s.Name(), clip(lr.line))
	}
	return s, lr.err
}

func isSectionBoundary(l []byte) bool {
	for _, p := range []string{"diff --git ", "@@ ", "GIT binary patch", "Binary files "} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

func scanHunk(lr *lineReader, s *Section, emit func(LineKind, []byte, int64) error) error {
	oldStart, oldLeft, newStart, newLeft, ok := ParseHunkHeader(lr.line)
	if !ok {
		return fmt.Errorf("patch: %s: malformed hunk header %q", s.Name(), clip(lr.line))
	}
	if s.Hunks == 0 {
		s.OldStart = oldStart
	}
	if s.Hunks > 0 || oldStart > 1 || newStart > 1 {
		s.seen = [2]int64{-1, -1}
	}
	s.Hunks++
	s.OldLines += oldLeft
	if err := emit(LineHunk, lr.line, lr.cut); err != nil {
		return err
	}
	lr.advance()
	for oldLeft > 0 || newLeft > 0 {
		if !lr.ok {
			if lr.err != nil {
				return lr.err
			}
			return fmt.Errorf("patch: %s: hunk ends early", s.Name())
		}
		kind, err := hunkLine(lr.line, lr.cut, &oldLeft, &newLeft, s)
		if err != nil {
			return err
		}
		s.shown.line(s, kind, int64(len(lr.line))+lr.cut+1)
		if err := emit(kind, lr.line, lr.cut); err != nil {
			return err
		}
		lr.advance()
	}
	if lr.ok && len(lr.line) > 0 && lr.line[0] == '\\' {
		s.shown.line(s, LineNoNewline, int64(len(lr.line))+lr.cut+1)
		if err := emit(LineNoNewline, lr.line, lr.cut); err != nil {
			return err
		}
		lr.advance()
	}
	return nil
}

// hunkLine classifies one line inside a hunk and counts it against what is left.
func hunkLine(l []byte, cut int64, oldLeft, newLeft *int64, s *Section) (LineKind, error) {
	op := byte(' ') // an empty line is a context line whose space was stripped
	if len(l) > 0 {
		op = l[0]
	}
	var text []byte
	if len(l) > 0 {
		text = l[1:]
	}
	switch {
	case op == ' ' && *oldLeft > 0 && *newLeft > 0:
		*oldLeft--
		*newLeft--
		s.sniff(text, cut, 0, 1)
		return LineContext, nil
	case op == '-' && *oldLeft > 0:
		*oldLeft--
		s.Deleted++
		s.sniff(text, cut, 0)
		return LineDeleted, nil
	case op == '+' && *newLeft > 0:
		*newLeft--
		s.Added++
		s.sniff(text, cut, 1)
		return LineAdded, nil
	case op == '\\':
		return LineNoNewline, nil
	}
	return 0, fmt.Errorf("patch: %s: line %q does not fit its hunk", s.Name(), clip(l))
}

// ShownContext is the context a review shows around each change (StreamPatch's).
const ShownContext = 3

// shownWindow counts Section.Shown from a patch with any context: the last
// context lines not yet counted wait in a window, counted when a change comes
// within ShownContext lines; after a change, ShownContext lines are counted.
type shownWindow struct {
	wait  [ShownContext]int64 // sizes of the last context lines, a ring
	n, at int                 // how many wait; where the next goes
	after int                 // context lines still to count after a change
	last  bool                // the last line was counted
}

func (w *shownWindow) line(s *Section, kind LineKind, size int64) {
	switch {
	case kind == LineNoNewline: // belongs to the line before it
		if w.last {
			s.Shown += size
		}
		return
	case kind != LineContext:
		for i := range w.n {
			s.Shown += w.wait[(w.at-w.n+i+ShownContext)%ShownContext]
		}
		w.n, w.after = 0, ShownContext
		s.Shown += size
		w.last = true
	case w.after > 0:
		w.after--
		s.Shown += size
		w.last = true
	default:
		w.wait[w.at] = size
		w.at, w.n = (w.at+1)%ShownContext, min(w.n+1, ShownContext)
		w.last = false
	}
}

// ParseHunkHeader parses "@@ -oldStart[,oldLines] +newStart[,newLines] @@".
func ParseHunkHeader(l []byte) (oldStart, oldLines, newStart, newLines int64, ok bool) {
	rest, found := bytes.CutPrefix(l, []byte("@@ -"))
	if !found {
		return 0, 0, 0, 0, false
	}
	oldRange, rest, found := bytes.Cut(rest, []byte(" +"))
	if !found {
		return 0, 0, 0, 0, false
	}
	newRange, _, found := bytes.Cut(rest, []byte(" @@"))
	if !found {
		return 0, 0, 0, 0, false
	}
	var ok1, ok2 bool
	oldStart, oldLines, ok1 = parseRange(oldRange)
	newStart, newLines, ok2 = parseRange(newRange)
	return oldStart, oldLines, newStart, newLines, ok1 && ok2
}

func parseRange(b []byte) (start, n int64, ok bool) {
	s, c, hasCount := bytes.Cut(b, []byte(","))
	start, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	if !hasCount {
		return start, 1, true
	}
	n, err = strconv.ParseInt(string(c), 10, 64)
	return start, n, err == nil && n >= 0
}

// lineReader holds the current line of a stream. A line longer than keep keeps
// its prefix and counts the rest in cut, so memory stays bounded.
type lineReader struct {
	br   *bufio.Reader
	keep int // at least the reader's buffer size
	line []byte
	long []byte
	cut  int64
	ok   bool
	err  error
}

func (lr *lineReader) advance() {
	lr.cut = 0
	buf, err := lr.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], buf...)
		for errors.Is(err, bufio.ErrBufferFull) {
			var more []byte
			more, err = lr.br.ReadSlice('\n')
			kept := min(len(more), max(lr.keep-len(lr.long), 0))
			lr.long = append(lr.long, more[:kept]...)
			lr.cut += int64(len(more) - kept)
			if err == nil && kept < len(more) {
				lr.cut-- // the newline
			}
		}
		buf = lr.long
	}
	switch {
	case err == nil:
		lr.line, lr.ok = bytes.TrimSuffix(buf, []byte("\n")), true
	case errors.Is(err, io.EOF) && len(buf) > 0:
		lr.line, lr.ok = buf, true // a last line without a newline
	case errors.Is(err, io.EOF):
		lr.line, lr.ok = nil, false
	default:
		lr.line, lr.ok, lr.err = nil, false, err
	}
}
