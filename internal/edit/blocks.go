package edit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The input formats git tdd patch reads, as --format names them.
const (
	FormatSeed    = "seed"         // ### CHANGE n: / FIND: / REPLACE WITH:, fenced
	FormatAider   = "aider"        // <<<<<<< SEARCH / ======= / >>>>>>> REPLACE
	FormatUnified = "unified-diff" // --- a/… / +++ b/… / @@ -l,s +l,s @@
	FormatCodex   = "codex"        // *** Begin Patch / *** Update File: … / *** End Patch
)

// Formats lists the input formats.
var Formats = []string{FormatSeed, FormatAider, FormatUnified, FormatCodex}

// What a block does to its file.
const (
	EditFile   = ""       // its REPLACE takes the place of its FIND
	AddFile    = "add"    // its REPLACE is the file's whole content
	DeleteFile = "delete" // the file goes (holding FIND, when FIND is given)
)

// Block is one change: a FIND/REPLACE block, a diff hunk, or a file added or
// deleted.
type Block struct {
	Index       int    // 1-based, in the order given
	Description string // the seed's "### CHANGE n: description", a hunk's header
	File        string // the file it names, or "" for the default one
	Find        []string
	Replace     []string
	Line        int    // where it starts in the input
	Format      string // one of Formats
	Action      string // EditFile, AddFile or DeleteFile
	// OldStart and NewStart are a unified diff hunk's line numbers (0: not
	// given). They are not trusted: they only break a tie between equal matches.
	OldStart, NewStart int
	// Anchors are Codex's "@@ <line>" lines: the hunk is after them, in order.
	Anchors []string
	// AtEOF is Codex's "*** End of File": the hunk ends the file.
	AtEOF bool
	// FinalNewline is a diff's "\ No newline at end of file": -1 when the
	// result's last line has no newline, +1 when it gets one, 0 as the file has it.
	FinalNewline int
}

// ParseError is malformed input, with the line it was found at. Truncated
// means the input ends inside a block: an agent's answer cut off at its token
// limit (seed 003 T110), which asking again with fewer blocks can fix.
type ParseError struct {
	Line      int
	Msg       string
	Truncated bool
}

func (e *ParseError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("line %d: %s: the input ends inside a block, as if cut off", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

var (
	changeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{2,4}\s*CHANGE\s*\d*\s*:?\s*(.*)$`) })
	fileRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{2,4}\s*FILE\s*:\s*(.+?)\s*$`) })
	findRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*\**\s*FIND\s*:?\s*\**\s*$`) })
	replaceRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*\**\s*REPLACE(\s+WITH)?\s*:?\s*\**\s*$`) })
	fenceRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^(\\s*)(`{3,}|~{3,})(.*)$") })
	searchRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<{5,9}\s*SEARCH\s*$`) })
	dividerRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^={5,9}\s*$`) })
	replaceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^>{5,9}\s*REPLACE\s*$`) })
)

// ParseBlocks reads edit blocks in any of the formats, each recognised where
// it starts: the seed's (### CHANGE n: / FIND: / REPLACE WITH: with fenced
// blocks), aider's (<<<<<<< SEARCH / ======= / >>>>>>> REPLACE, fenced or not),
// unified diffs and Codex's apply_patch. A file name on the line before an
// aider block (or its fence), or a "### FILE: <path>" line, picks the file for
// the blocks that follow; a diff's own headers pick the file of its hunks.
func ParseBlocks(input string) ([]Block, error) { return ParseBlocksAs(input, "") }

// ParseBlocksAs reads only the given format ("" reads them all).
func ParseBlocksAs(input, format string) ([]Block, error) {
	if format != "" && !slices.Contains(Formats, format) {
		return nil, &ParseError{1, fmt.Sprintf("unknown format %q: expected one of %s", format, strings.Join(Formats, ", ")), false}
	}
	input = strings.TrimPrefix(input, "\ufeff")
	input = strings.ReplaceAll(input, "\r\n", "\n")
	p := &blockParser{lines: strings.Split(input, "\n"), format: format, endsInNewline: strings.HasSuffix(input, "\n")}
	if p.endsInNewline {
		p.lines = p.lines[:len(p.lines)-1]
	}
	for p.i < len(p.lines) {
		if err := p.next(); err != nil {
			return nil, err
		}
	}
	if err := p.endDiff(); err != nil {
		return nil, err
	}
	if len(p.blocks) == 0 {
		return nil, &ParseError{1, "no edit blocks found: " + expected[format], false}
	}
	return p.blocks, nil
}

// expected says, per format, what the input should have held.
var expected = map[string]string{
	"":            "expected ### CHANGE n: with FIND: and REPLACE WITH:, <<<<<<< SEARCH / ======= / >>>>>>> REPLACE, a unified diff or a Codex patch",
	FormatSeed:    "expected ### CHANGE n: with FIND: and REPLACE WITH:",
	FormatAider:   "expected <<<<<<< SEARCH / ======= / >>>>>>> REPLACE",
	FormatUnified: "expected a unified diff (--- a/…, +++ b/…, @@ … @@)",
	FormatCodex:   "expected a Codex patch (*** Begin Patch, *** Update File: …, *** End Patch)",
}

type blockParser struct {
	lines  []string
	i      int
	format string // the only format read, or "" for all
	file   string // the current file
	desc   string
	blocks []Block
	// fence is the marker of a fence open around diffs, "" outside one: a diff
	// that runs to the end of the input inside it was cut off.
	fence         string
	endsInNewline bool
	diff          *diffFile // the file whose hunks come next
}

// reads reports whether the parser looks for the format's markers.
func (p *blockParser) reads(format string) bool { return p.format == "" || p.format == format }

func (p *blockParser) next() error {
	line := p.lines[p.i]
	trimmed := strings.TrimSpace(line)
	switch {
	case fileRe().MatchString(trimmed):
		if err := p.endDiff(); err != nil {
			return err
		}
		p.file = strings.Trim(fileRe().FindStringSubmatch(trimmed)[1], "`*\"' ")
		p.i++
	case p.reads(FormatCodex) && p.codexStart():
		if err := p.endDiff(); err != nil {
			return err
		}
		return p.codex()
	case p.reads(FormatUnified) && p.diffLine():
		return p.unified()
	case p.reads(FormatSeed) && changeRe().MatchString(trimmed):
		p.desc = strings.TrimSpace(changeRe().FindStringSubmatch(trimmed)[1])
		p.i++
	case p.reads(FormatSeed) && findRe().MatchString(line):
		return p.seedBlock()
	case p.reads(FormatSeed) && replaceRe().MatchString(line):
		return &ParseError{p.i + 1, "REPLACE WITH: without a FIND: before it", false}
	case p.reads(FormatAider) && searchRe().MatchString(trimmed):
		return p.aiderBlock()
	case p.reads(FormatAider) && (dividerRe().MatchString(trimmed) || replaceEnd().MatchString(trimmed)):
		return &ParseError{p.i + 1, fmt.Sprintf("%q without a <<<<<<< SEARCH before it", trimmed), false}
	default:
		if p.reads(FormatAider) {
			p.maybeFileName(trimmed)
		}
		p.trackFence(line)
		p.i++
	}
	return nil
}

// trackFence follows the fences of the text around the blocks.
func (p *blockParser) trackFence(line string) {
	m := fenceRe().FindStringSubmatch(line)
	switch {
	case m == nil:
	case p.fence == "":
		p.fence = m[2]
	case strings.HasPrefix(m[2], p.fence[:1]) && len(m[2]) >= len(p.fence) && strings.TrimSpace(m[3]) == "":
		p.fence = ""
	}
}

// maybeFileName remembers the file name aider writes on the line before a
// block (or its fence). Only a line that looks like a path counts: one word,
// with a directory or an extension; prose before a block is prose.
func (p *blockParser) maybeFileName(s string) {
	if s == "" || fenceRe().MatchString(s) {
		return
	}
	j := p.i + 1
	if j >= len(p.lines) {
		return
	}
	nxt := strings.TrimSpace(p.lines[j])
	if !(fenceRe().MatchString(nxt) && j+1 < len(p.lines) && searchRe().MatchString(strings.TrimSpace(p.lines[j+1])) || searchRe().MatchString(nxt)) {
		return
	}
	if name := strings.Trim(s, "`*: "); pathLike(name) {
		p.file = name
	}
}

// pathLike: no spaces, a directory or an extension, and not a sentence's end.
func pathLike(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t") && strings.ContainsAny(s, "./") &&
		!strings.HasSuffix(s, ".") && !strings.ContainsAny(s, "!?,;()[]{}<>|")
}

func (p *blockParser) seedBlock() error {
	start := p.i + 1
	p.i++
	find, err := p.fenced("FIND:")
	if err != nil {
		return err
	}
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
	if p.i >= len(p.lines) || !replaceRe().MatchString(p.lines[p.i]) {
		return &ParseError{start, "FIND: without a REPLACE WITH: after its block", p.i >= len(p.lines)}
	}
	p.i++
	repl, err := p.fenced("REPLACE WITH:")
	if err != nil {
		return err
	}
	p.add(Block{Description: p.desc, Find: find, Replace: repl, Line: start, Format: FormatSeed})
	p.desc = ""
	return nil
}

// fenced reads the fenced block that follows a label; the closing fence is the
// same character, at least as long as the opening one.
func (p *blockParser) fenced(label string) ([]string, error) {
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
	if p.i >= len(p.lines) {
		return nil, &ParseError{p.i, label + " without a fenced block after it", true}
	}
	m := fenceRe().FindStringSubmatch(p.lines[p.i])
	if m == nil {
		return nil, &ParseError{p.i + 1, label + " must be followed by a fenced block (```)", false}
	}
	open := m[2]
	start := p.i + 1
	p.i++
	var out []string
	for ; p.i < len(p.lines); p.i++ {
		t := strings.TrimSpace(p.lines[p.i])
		if strings.HasPrefix(t, open[:1]) && strings.Trim(t, open[:1]) == "" && len(t) >= len(open) {
			p.i++
			return out, nil
		}
		out = append(out, p.lines[p.i])
	}
	return nil, &ParseError{start, "the fenced block of " + label + " is not closed", true}
}

func (p *blockParser) aiderBlock() error {
	start := p.i + 1
	p.i++
	var find, repl []string
	for ; p.i < len(p.lines) && !dividerRe().MatchString(strings.TrimSpace(p.lines[p.i])); p.i++ {
		if searchRe().MatchString(strings.TrimSpace(p.lines[p.i])) || replaceEnd().MatchString(strings.TrimSpace(p.lines[p.i])) {
			return &ParseError{p.i + 1, "a SEARCH block without its ======= divider", false}
		}
		find = append(find, p.lines[p.i])
	}
	if p.i >= len(p.lines) {
		return &ParseError{start, "<<<<<<< SEARCH without =======", true}
	}
	p.i++
	for ; p.i < len(p.lines) && !replaceEnd().MatchString(strings.TrimSpace(p.lines[p.i])); p.i++ {
		if searchRe().MatchString(strings.TrimSpace(p.lines[p.i])) || dividerRe().MatchString(strings.TrimSpace(p.lines[p.i])) {
			return &ParseError{p.i + 1, "a REPLACE block without its >>>>>>> REPLACE end", false}
		}
		repl = append(repl, p.lines[p.i])
	}
	if p.i >= len(p.lines) {
		return &ParseError{start, "<<<<<<< SEARCH without >>>>>>> REPLACE", true}
	}
	p.i++
	p.add(Block{Find: find, Replace: repl, Line: start, Format: FormatAider})
	return nil
}

// add appends a block, for the current file unless it names its own.
func (p *blockParser) add(b Block) {
	b.Index = len(p.blocks) + 1
	if b.File == "" {
		b.File = p.file
	}
	p.blocks = append(p.blocks, b)
}

// WholeFile is git tdd prompt's answer format for a whole file: a "### FILE:
// <path>" line, then the content in a fence that closes at the end of the
// answer. It returns the path and the content between the fences, byte for
// byte; ok is false for anything else, which is then the content itself.
func WholeFile(input []byte) (path string, content []byte, ok bool) {
	s := strings.TrimPrefix(string(input), "\ufeff")
	header, rest, found := strings.Cut(strings.TrimLeft(s, " \t\r\n"), "\n")
	m := fileRe().FindStringSubmatch(strings.TrimSpace(header))
	if !found || m == nil {
		return "", nil, false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	open, body, found := strings.Cut(rest, "\n")
	fm := fenceRe().FindStringSubmatch(strings.TrimSuffix(open, "\r"))
	if !found || fm == nil || fm[1] != "" {
		return "", nil, false
	}
	body = strings.TrimRight(body, " \t\r\n")
	i := strings.LastIndexByte(body, '\n')
	closing := strings.TrimSpace(body[i+1:])
	if closing == "" || strings.Trim(closing, fm[2][:1]) != "" || len(closing) < len(fm[2]) {
		return "", nil, false
	}
	if i < 0 {
		return strings.Trim(m[1], "`*\"' "), []byte{}, true
	}
	return strings.Trim(m[1], "`*\"' "), []byte(body[:i+1]), true
}
