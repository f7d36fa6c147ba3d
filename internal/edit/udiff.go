package edit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Unified diffs: git's, diff -u's, and the ones models write, whose @@ line
// numbers and counts are rarely right. A hunk is read by its lines, not by its
// counts (which only decide where a counted hunk ends when it is followed by
// more lines that look like a hunk's).

var (
	hunkRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	})
	gitDiffRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^diff --git (.*)$`)
	})
	extendedRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(index |old mode |new mode |new file mode |deleted file mode |similarity index |dissimilarity index |rename from |rename to |copy from |copy to |Binary files |GIT binary patch)`)
	})
)

const devNull = "/dev/null"

// diffFile is the file a diff's headers named, whose hunks come next.
type diffFile struct {
	path   string
	action string // AddFile or DeleteFile for /dev/null and git's file modes
	line   int
	hunks  int
	headed bool // named by --- and +++ (which promise a hunk), not only by diff --git
}

// diffLine reports whether a unified diff's header or hunk starts at p.i.
func (p *blockParser) diffLine() bool {
	l := p.lines[p.i]
	switch {
	case gitDiffRe().MatchString(l), p.fileHeaderAt(p.i), hunkRe().MatchString(l):
		return true
	case p.format == FormatUnified && strings.HasPrefix(l, "@@"):
		return true // forced: a bare "@@" is a hunk too
	}
	return false
}

// fileHeaderAt reports whether lines i and i+1 are a "--- "/"+++ " pair.
func (p *blockParser) fileHeaderAt(i int) bool {
	return i+1 < len(p.lines) && strings.HasPrefix(p.lines[i], "--- ") && strings.HasPrefix(p.lines[i+1], "+++ ")
}

// unified reads the diff construct at p.i: git's header, the file headers, or
// one hunk.
func (p *blockParser) unified() error {
	l := p.lines[p.i]
	switch {
	case gitDiffRe().MatchString(l):
		return p.gitHeader()
	case p.fileHeaderAt(p.i):
		return p.fileHeaders()
	}
	return p.hunk()
}

// gitHeader reads "diff --git a/x b/x" and its extended header lines.
func (p *blockParser) gitHeader() error {
	if err := p.endDiff(); err != nil {
		return err
	}
	p.diff = &diffFile{path: gitPath(gitDiffRe().FindStringSubmatch(p.lines[p.i])[1]), line: p.i + 1}
	for p.i++; p.i < len(p.lines) && extendedRe().MatchString(p.lines[p.i]); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "rename ") || strings.HasPrefix(l, "copy "):
			return &ParseError{p.i + 1, "renames and copies are not supported: move the file with git mv, then patch it", false}
		case strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "GIT binary patch"):
			return &ParseError{p.i + 1, "binary patches are not supported", false}
		case strings.HasPrefix(l, "new file mode "):
			p.diff.action = AddFile
		case strings.HasPrefix(l, "deleted file mode "):
			p.diff.action = DeleteFile
		}
	}
	return nil
}

// gitPath takes the file out of "a/x b/x" when both sides name the same one.
func gitPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		a, rest, err := unquotePrefix(s)
		b, _, err2 := unquotePrefix(strings.TrimPrefix(rest, " "))
		if err == nil && err2 == nil && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:]
		}
		return ""
	}
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:]
		}
	}
	return ""
}

func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, err
	}
	u, err := strconv.Unquote(q)
	return u, s[len(q):], err
}

// fileHeaders reads "--- old" and "+++ new".
func (p *blockParser) fileHeaders() error {
	start := p.i + 1
	old, nw := headerPath(p.lines[p.i][4:]), headerPath(p.lines[p.i+1][4:])
	p.i += 2
	d := p.diff
	if d == nil || d.hunks > 0 || d.headed {
		if err := p.endDiff(); err != nil {
			return err
		}
		d = &diffFile{line: start}
	}
	d.headed = true
	switch {
	case old == devNull && nw == devNull:
		return &ParseError{start, "both sides of the diff are /dev/null", false}
	case old == devNull:
		d.path, d.action = strings.TrimPrefix(nw, "b/"), AddFile
	case nw == devNull:
		d.path, d.action = strings.TrimPrefix(old, "a/"), DeleteFile
	default:
		if strings.HasPrefix(old, "a/") && strings.HasPrefix(nw, "b/") {
			old, nw = old[2:], nw[2:]
		}
		if old != nw {
			return &ParseError{start, fmt.Sprintf("renames and copies are not supported (%s → %s): move the file with git mv, then patch it", old, nw), false}
		}
		d.path = nw
	}
	p.diff = d
	return nil
}

// headerPath is the name on a ---/+++ line: C-quoted as git quotes it, or up
// to the tab before a timestamp.
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, _, err := unquotePrefix(s); err == nil {
			return u
		}
	}
	s, _, _ = strings.Cut(s, "\t")
	return strings.TrimRight(s, " ")
}

// endDiff closes the current diff file: one whose headers promised a hunk
// and gave none is an error; git's new or deleted file without hunks (an
// empty file) is added or deleted.
func (p *blockParser) endDiff() error {
	d := p.diff
	p.diff = nil
	switch {
	case d == nil || d.hunks > 0:
	case d.headed:
		return &ParseError{d.line, "the diff of " + d.path + " has no hunk (@@ … @@)", false}
	case d.action != "" && d.path != "":
		p.add(Block{File: d.path, Action: d.action, Line: d.line, Format: FormatUnified})
	}
	return nil
}

// hunkLine is one line of a hunk: ' ', '-' or '+', and the text after it.
type hunkLine struct {
	kind byte
	text string
}

// hunk reads one hunk: its header, then its lines up to the first line that
// is not one (a counted hunk that has all its lines stops at a blank line).
func (p *blockParser) hunk() error {
	start, header := p.i+1, p.lines[p.i]
	b := Block{Line: start, Format: FormatUnified}
	oldLeft, newLeft, counted := -1, -1, false
	if m := hunkRe().FindStringSubmatch(header); m != nil {
		b.Description = m[0] // without the function name git puts after it
		b.OldStart, b.NewStart = atoi(m[1]), atoi(m[3])
		oldLeft, newLeft, counted = count(m[2]), count(m[4]), true
	}
	var body []hunkLine
	oldEOL, newEOL := false, false // "\ No newline at end of file" after a line of that side
	for p.i++; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		done := counted && oldLeft <= 0 && newLeft <= 0
		if l == "" {
			if done || !p.hunkGoesOn(p.i+1) {
				break
			}
			l = " " // a blank context line whose space was lost
		}
		kind := l[0]
		if kind == '-' && p.fileHeaderAt(p.i) && (done || !counted || p.i+2 < len(p.lines) && hunkRe().MatchString(p.lines[p.i+2])) {
			break
		}
		switch kind {
		case ' ', '-', '+':
			body = append(body, hunkLine{kind, l[1:]})
			if kind != '+' {
				oldLeft--
			}
			if kind != '-' {
				newLeft--
			}
		case '\\':
			if len(body) > 0 {
				last := body[len(body)-1].kind
				oldEOL = oldEOL || last != '+'
				newEOL = newEOL || last != '-'
			}
		default:
			return p.endHunk(b, body, oldEOL, newEOL)
		}
	}
	if counted && (oldLeft > 0 || newLeft > 0) && p.i >= len(p.lines) && (!p.endsInNewline || p.fence != "") || p.i >= len(p.lines) && p.fence != "" {
		return &ParseError{start, "a hunk is cut off", true}
	}
	return p.endHunk(b, body, oldEOL, newEOL)
}

// hunkGoesOn reports whether a hunk's line follows blank lines from i on.
func (p *blockParser) hunkGoesOn(i int) bool {
	for ; i < len(p.lines) && p.lines[i] == ""; i++ {
	}
	if i >= len(p.lines) || p.fileHeaderAt(i) {
		return false
	}
	c := p.lines[i][0]
	return c == ' ' || c == '-' || c == '+' || c == '\\'
}

// endHunk turns a hunk's lines into a block for the current diff file.
func (p *blockParser) endHunk(b Block, body []hunkLine, oldEOL, newEOL bool) error {
	changes := 0
	for _, h := range body {
		if h.kind != ' ' {
			changes++
		}
		if h.kind != '+' {
			b.Find = append(b.Find, h.text)
		}
		if h.kind != '-' {
			b.Replace = append(b.Replace, h.text)
		}
	}
	switch {
	case oldEOL && !newEOL:
		b.FinalNewline = 1
	case newEOL:
		b.FinalNewline = -1
	}
	d := p.diff
	if d != nil {
		b.File = d.path
		b.Action = d.action
		d.hunks++
	}
	switch {
	case changes == 0 && b.Action == EditFile:
		return &ParseError{b.Line, "the hunk changes nothing: it has no - or + line", false}
	case b.Action == AddFile && (len(b.Find) > 0 || d.hunks > 1):
		return &ParseError{b.Line, "a new file has one hunk, of + lines only", false}
	case b.Action == DeleteFile && (len(b.Replace) > 0 || d.hunks > 1):
		return &ParseError{b.Line, "a deleted file has one hunk, of - lines only", false}
	case b.Action != EditFile:
		b.OldStart, b.NewStart = 0, 0
	}
	p.add(b)
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// count is a hunk header's line count: 1 when it is left out.
func count(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}
