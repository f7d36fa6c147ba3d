package edit

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/term"
)

// Codex CLI's apply_patch format: "*** Begin Patch", then per file "*** Update
// File: <path>" with @@ sections of ' ', '-' and '+' lines, "*** Add File:
// <path>" with '+' lines, or "*** Delete File: <path>", then "*** End Patch".
// An "@@ <line>" names a line the section comes after (a class, a function);
// "*** End of File" ends a section at the end of the file. As Codex does,
// markers may be indented, and the envelope may be left out.

var codexFileRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\*\*\* (Update|Add|Delete) File: *(.+?)\s*$`)
})

const (
	codexBegin = "*** Begin Patch"
	codexEnd   = "*** End Patch"
	codexEOF   = "*** End of File"
	codexMove  = "*** Move to:"
)

// codexStart reports whether a Codex patch starts at p.i.
func (p *blockParser) codexStart() bool {
	t := strings.TrimSpace(p.lines[p.i])
	return t == codexBegin || codexFileRe().MatchString(t)
}

// codex reads a Codex patch: with its envelope, up to "*** End Patch"; without
// it, up to the first line that is none of its own.
func (p *blockParser) codex() error {
	start := p.i + 1
	enveloped := strings.TrimSpace(p.lines[p.i]) == codexBegin
	if enveloped {
		p.i++
	}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		switch {
		case t == codexEnd:
			p.i++
			return nil
		case codexFileRe().MatchString(t):
			if err := p.codexFile(); err != nil {
				return err
			}
		case t == "":
			p.i++
		case !enveloped && !codexish(l):
			return nil
		default:
			return &ParseError{p.i + 1, fmt.Sprintf("%q in a Codex patch: expected *** Update File:, *** Add File:, *** Delete File: or *** End Patch", term.Line(t, 60)), false}
		}
	}
	if enveloped {
		return &ParseError{start, "*** Begin Patch without *** End Patch", true}
	}
	return nil
}

// codexMarker reports whether a trimmed line is one of the markers that end
// an @@ section; other lines that start with "***" after a space are content.
func codexMarker(t string) bool {
	return t == codexEnd || t == codexEOF || codexFileRe().MatchString(t) || strings.HasPrefix(t, codexMove)
}

// codexish reports whether a line could belong to a Codex file section.
func codexish(l string) bool {
	return l != "" && strings.ContainsRune(" -+", rune(l[0])) || strings.HasPrefix(l, "@@") || strings.HasPrefix(strings.TrimSpace(l), "***")
}

// codexFile reads one file operation.
func (p *blockParser) codexFile() error {
	m := codexFileRe().FindStringSubmatch(strings.TrimSpace(p.lines[p.i]))
	op, path, line := m[1], m[2], p.i+1
	p.i++
	switch op {
	case "Delete":
		p.add(Block{File: path, Action: DeleteFile, Line: line, Format: FormatCodex})
	case "Add":
		var content []string
		for ; p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "+"); p.i++ {
			content = append(content, p.lines[p.i][1:])
		}
		p.add(Block{File: path, Action: AddFile, Replace: content, Line: line, Format: FormatCodex})
	default:
		if p.i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), codexMove) {
			return &ParseError{p.i + 1, "*** Move to: is not supported: move the file with git mv, then patch it", false}
		}
		return p.codexUpdate(path, line)
	}
	return nil
}

// codexSection is an @@ section of an Update File being read.
type codexSection struct {
	b    Block
	body []hunkLine
}

// codexUpdate reads the @@ sections of an Update File, up to the next "***"
// marker; the first section may leave out its "@@".
func (p *blockParser) codexUpdate(path string, line int) error {
	cur := &codexSection{b: Block{File: path, Line: p.i + 1, Format: FormatCodex}}
	sections := 0
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		switch {
		case t == codexEOF:
			cur.b.AtEOF = true
			if err := p.endSection(cur, &sections); err != nil {
				return err
			}
			cur = &codexSection{b: Block{File: path, Line: p.i + 2, Format: FormatCodex}}
		case l != "" && l[0] == '*' || codexMarker(t):
			return p.endUpdate(cur, &sections, path, line)
		case strings.HasPrefix(l, "@@"):
			if len(cur.body) > 0 {
				if err := p.endSection(cur, &sections); err != nil {
					return err
				}
				cur = &codexSection{b: Block{File: path, Line: p.i + 1, Format: FormatCodex}}
			}
			p.codexHeader(cur, l)
		case l == "":
			if p.sectionGoesOn(p.i + 1) {
				cur.body = append(cur.body, hunkLine{' ', ""})
			}
		case strings.ContainsRune(" -+", rune(l[0])):
			cur.body = append(cur.body, hunkLine{l[0], l[1:]})
		default:
			return p.endUpdate(cur, &sections, path, line)
		}
	}
	return p.endUpdate(cur, &sections, path, line)
}

// codexHeader reads an "@@" line: "@@ <line>" is an anchor; a unified diff's
// "@@ -l,s +l,s @@", which models write here too, gives line numbers.
func (p *blockParser) codexHeader(cur *codexSection, l string) {
	if m := hunkRe().FindStringSubmatch(l); m != nil {
		cur.b.OldStart, cur.b.NewStart = atoi(m[1]), atoi(m[3])
		return
	}
	if a := strings.TrimSpace(strings.TrimPrefix(l, "@@")); a != "" {
		cur.b.Anchors = append(cur.b.Anchors, a)
	}
	if len(cur.b.Anchors) > 0 {
		cur.b.Description = "@@ " + strings.Join(cur.b.Anchors, " @@ ")
	}
}

// sectionGoesOn reports whether an @@ section's line follows blank lines.
func (p *blockParser) sectionGoesOn(i int) bool {
	for ; i < len(p.lines) && p.lines[i] == ""; i++ {
	}
	return i < len(p.lines) && strings.ContainsRune(" -+", rune(p.lines[i][0]))
}

// endSection turns a section into a block. A section of '+' lines only goes
// after its anchor, or at the end of the file with "*** End of File"; without
// either nothing says where (Codex would append it: a guess, refused here).
func (p *blockParser) endSection(cur *codexSection, sections *int) error {
	if len(cur.body) == 0 {
		if cur.b.AtEOF || len(cur.b.Anchors) > 0 {
			return &ParseError{cur.b.Line, "an @@ section without lines", false}
		}
		return nil
	}
	b := cur.b
	if err := p.endHunk(b, cur.body, false, false); err != nil {
		return err
	}
	last := &p.blocks[len(p.blocks)-1]
	last.Format, last.File = FormatCodex, b.File
	*sections++
	return nil
}

func (p *blockParser) endUpdate(cur *codexSection, sections *int, path string, line int) error {
	if err := p.endSection(cur, sections); err != nil {
		return err
	}
	if *sections == 0 {
		return &ParseError{line, "*** Update File: " + path + " has no @@ section", false}
	}
	return nil
}
