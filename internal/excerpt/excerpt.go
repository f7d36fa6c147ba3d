// Package excerpt fits a source file into what one prompt may carry of it
// (seed 002: 100 KB a file): the whole file when it fits; otherwise its
// imports, the outline of its top-level definitions, and the definitions the
// task names, each as the file's own lines with their line numbers, so that a
// model can copy FIND blocks that match from them.
package excerpt

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Want is what the task names: the identifiers of the tests, the failure and
// the design, and the lines of this file the failure points at (1-based).
type Want struct {
	Names map[string]bool
	Lines []int
}

// Block is lines [Start, End] of a file (1-based), exactly as they are.
type Block struct {
	Start, End int
	What       string // what they are: "def chunked", "imports", "the end of the file"
	Lines      []string
}

// Entry is one line of the outline: where a top-level definition starts and
// the text of that line.
type Entry struct {
	Line int
	Text string
}

// Part is what a prompt carries of one file.
type Part struct {
	Path    string
	Whole   bool   // the file as it is, in Content
	Content string // the whole file, or the excerpt as the prompt shows it
	Lines   int    // lines of the file on disk
	Bytes   int    // bytes of the file on disk
	Outline []Entry
	Blocks  []Block // the imports and the definitions sent, in the file's order
	Defs    int     // how many of the blocks are definitions
}

// Describe says what part of the file is sent, for the data policy.
func (p Part) Describe() string {
	if p.Whole {
		return "whole"
	}
	if p.Defs == 1 {
		return "outline + 1 definition"
	}
	return fmt.Sprintf("outline + %d definitions", p.Defs)
}

// item is a top-level statement of the file with everything nested in it:
// lines [start, end) 0-based, sig the line that names it.
type item struct {
	kind, name      string // def, class, func, method, type, var, const, assign, import, other
	start, sig, end int
	hasImport       bool // an "other" statement (try, if) that imports
}

// Fit is the part of the file a prompt carries within maxBytes: the whole
// file when it fits, an excerpt of a Python or Go file otherwise. An error
// says why nothing of it can be sent.
func Fit(rel, content string, want Want, maxBytes int) (Part, error) {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	p := Part{Path: rel, Lines: len(lines), Bytes: len(content)}
	if content == "" {
		p.Lines = 0
	}
	if len(content) <= maxBytes {
		p.Whole, p.Content = true, content
		return p, nil
	}
	var items []item
	var err error
	switch path.Ext(rel) {
	case ".py":
		items, err = pythonItems(lines)
	case ".go":
		items, err = goItems(content)
	default:
		return p, fmt.Errorf("is %d bytes, over the limit of %d bytes, and only Python and Go files can be sent in part", len(content), maxBytes)
	}
	if err != nil {
		return p, fmt.Errorf("is %d bytes, over the limit of %d bytes, and cannot be outlined: %v", len(content), maxBytes, err)
	}
	return fit(p, lines, items, want, maxBytes)
}

// maxImportLines bounds a try or if block shown among the imports.
const maxImportLines = 20

func fit(p Part, lines []string, items []item, want Want, maxBytes int) (Part, error) {
	for _, it := range items {
		switch it.kind {
		case "import", "other", "decorator":
		default:
			p.Outline = append(p.Outline, Entry{it.sig + 1, lines[it.sig]})
		}
	}
	var imports []Block
	for _, it := range items {
		if it.kind == "import" || it.hasImport && it.end-it.start <= maxImportLines {
			imports = append(imports, block(lines, it, "imports"))
		}
	}
	imports = merge(imports)
	p.Blocks = imports
	size := len(render(p))
	if size > maxBytes {
		return p, fmt.Errorf("is %d bytes, over the limit of %d bytes, and even its outline is %d bytes", p.Bytes, maxBytes, size)
	}
	var defs []Block
	add := func(b Block) {
		for _, d := range defs {
			if d.Start <= b.Start && b.End <= d.End {
				return
			}
		}
		if cost := blockSize(b); size+cost <= maxBytes {
			defs, size = append(defs, b), size+cost
		}
	}
	for _, n := range want.Lines { // what the failure points at first
		for _, it := range items {
			if it.start < n && n <= it.end && it.kind != "import" {
				add(block(lines, it, label(it)))
			}
		}
	}
	for _, it := range items {
		if it.name == "__all__" || isDef(it.kind) && named(it, want.Names) {
			add(block(lines, it, label(it)))
		}
	}
	if tail := tailOf(lines, items); tail.End > 0 { // where a new definition goes
		add(tail)
	}
	p.Defs = len(defs)
	p.Blocks = merge(append(imports, defs...))
	p.Content = render(p)
	return p, nil
}

func isDef(kind string) bool {
	switch kind {
	case "import", "other", "decorator":
		return false
	}
	return true
}

// named reports whether the task names the definition: its name, or for a
// Go method both its type and its name.
func named(it item, names map[string]bool) bool {
	if typ, m, ok := strings.Cut(it.name, "."); ok {
		return names[typ] && names[m]
	}
	return names[it.name]
}

func label(it item) string {
	switch it.kind {
	case "other", "import":
		return "top-level code"
	case "assign":
		return it.name
	}
	return it.kind + " " + it.name
}

func block(lines []string, it item, what string) Block {
	return Block{Start: it.start + 1, End: it.end, What: what, Lines: lines[it.start:it.end]}
}

// tailOf is the file's last definition when it is short, else its last lines.
func tailOf(lines []string, items []item) Block {
	const most = 40
	if len(items) == 0 {
		return Block{}
	}
	last := items[len(items)-1]
	start := max(last.start, last.end-most/2)
	if last.end-last.start <= most {
		start = last.start
	}
	return Block{Start: start + 1, End: last.end, What: "the end of the file", Lines: lines[start:last.end]}
}

// merge joins blocks that overlap or touch, in the file's order.
func merge(bs []Block) []Block {
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Start < bs[j].Start })
	var out []Block
	for _, b := range bs {
		if n := len(out); n > 0 && b.Start <= out[n-1].End+1 {
			last := &out[n-1]
			if b.End > last.End {
				last.Lines = append(slices.Clip(last.Lines), b.Lines[last.End-b.Start+1:]...)
				last.End = b.End
			}
			if !strings.Contains(last.What, b.What) {
				last.What += ", " + b.What
			}
			continue
		}
		out = append(out, b)
	}
	return out
}

// blockSize is what a block adds to the excerpt.
func blockSize(b Block) int {
	n := 60 + len(b.What)
	for _, l := range b.Lines {
		n += len(l) + 1
	}
	return n
}

// render writes the excerpt as the prompt shows it.
func render(p Part) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This file has %d lines (%d bytes), too large to send whole. Shown: its imports, an outline of its top-level definitions, and the definitions this task names, each as the file's lines copied exactly (the \"Lines N-M\" headings and the outline's \"N:\" are not part of the file). Copy FIND blocks from these lines only.\n\n", p.Lines, p.Bytes)
	b.WriteString("Outline (line: the line that starts each top-level definition):\n\n")
	var o strings.Builder
	for _, e := range p.Outline {
		fmt.Fprintf(&o, "%d: %s\n", e.Line, e.Text)
	}
	fmt.Fprintf(&b, "%s\n\n", Fenced(o.String()))
	for _, bl := range p.Blocks {
		fmt.Fprintf(&b, "Lines %d-%d (%s):\n\n%s\n\n", bl.Start, bl.End, bl.What, Fenced(strings.Join(bl.Lines, "\n")))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// Fenced puts s in a code fence longer than any run of backticks in it.
func Fenced(s string) string {
	n, run := 3, 0
	for _, c := range s {
		if c == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
