package edit

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestCorpus applies the hunks of real commits of a public Python project
// (more-itertools: three files, 40 commits each; testdata/corpus/build.go
// made the corpus), rewritten in every format and with the mistakes models
// make, and requires each block either to apply byte for byte as it asks
// (the real commit's file, when the mistake leaves the change itself
// intact) or to be refused: none may apply wrongly.
//
// The versions are rebuilt by applying the real diffs by their line numbers
// (not with the code under test), each checked against the blob id git wrote
// on its index line.
func TestCorpus(t *testing.T) {
	files := loadCorpus(t)
	stats := map[string]*tally{}
	var wrong []string
	for _, f := range files {
		v := f.base
		for _, d := range f.diffs {
			next, ok := applyStrict(v, d.hunks)
			if !ok || blobID(next.bytes()) != d.newID || blobID(v.bytes()) != d.oldID {
				t.Fatalf("%s: the corpus does not rebuild", d.name)
			}
			vt := Parse(v.bytes())
			for _, c := range corpusCases(d, f.path) {
				got, verdict := judge(c.input, vt)
				var want []byte
				if verdict != "refused" {
					w, ok := applyStrict(v, c.intended)
					if !ok {
						t.Fatalf("%s %s: the intended hunks do not apply", d.name, c.name)
					}
					if want = w.bytes(); bytes.Equal(got, want) {
						verdict = "exact"
					}
				}
				key := c.format + " / " + c.name
				if stats[key] == nil {
					stats[key] = &tally{}
				}
				stats[key].add(verdict)
				if verdict == "wrong" && len(wrong) < 10 {
					wrong = append(wrong, fmt.Sprintf("%s %s:\n%s\n--- got (around the first difference)\n%s", d.name, key, c.input, around(got, want)))
				}
			}
			v = next
		}
	}
	total := &tally{}
	var keys []string
	for k := range stats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := stats[k]
		t.Logf("%-44s exact %4d  refused %4d  wrong %d", k, s.exact, s.refused, s.wrong)
		total.exact, total.refused, total.wrong = total.exact+s.exact, total.refused+s.refused, total.wrong+s.wrong
	}
	t.Logf("%-44s exact %4d  refused %4d  wrong %d", "all", total.exact, total.refused, total.wrong)
	for _, w := range wrong {
		t.Error("applied wrongly: " + w)
	}
	if total.exact < 3*total.refused {
		t.Errorf("too much is refused: %d exact, %d refused", total.exact, total.refused)
	}
}

type tally struct{ exact, refused, wrong int }

func (t *tally) add(verdict string) {
	switch verdict {
	case "exact":
		t.exact++
	case "refused":
		t.refused++
	default:
		t.wrong++
	}
}

// judge applies an input to a version, its format found as patch finds it:
// "refused" when the input does not parse or a block does not apply, else
// "wrong" until the caller finds the result is what the input asks.
func judge(input string, v *Text) ([]byte, string) {
	bs, err := ParseBlocks(input)
	if err != nil {
		return nil, "refused"
	}
	res, outs := ApplyAll(v, "f", bs)
	for _, o := range outs {
		if o.Failed() {
			return nil, "refused"
		}
	}
	return res.Bytes(), "wrong"
}

// around shows the lines of got around its first difference from want.
func around(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(i-3, 0)
	return fmt.Sprintf("line %d:\n  got  %q\n  want %q", i+1, g[from:min(i+4, len(g))], w[from:min(i+4, len(w))])
}

// corpusFile is one file of the corpus: its first version and the diffs
// that follow it.
type corpusFile struct {
	path  string
	base  version
	diffs []realDiff
}

func loadCorpus(t *testing.T) []*corpusFile {
	t.Helper()
	raw, err := os.ReadFile("testdata/corpus/more-itertools.txtar.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var out []*corpusFile
	byPath := map[string]*corpusFile{}
	for _, f := range txtar.Parse(data).Files {
		kind, rest, _ := strings.Cut(f.Name, "/")
		switch kind {
		case "base":
			byPath[rest] = &corpusFile{path: rest, base: parseVersion(f.Data)}
			out = append(out, byPath[rest])
		case "diff":
			path := rest[:strings.LastIndexByte(rest, '/')]
			if len(f.Data) == 0 {
				continue
			}
			d := readRealDiff(t, f.Name, string(f.Data))
			byPath[path].diffs = append(byPath[path].diffs, d)
		}
	}
	return out
}

// version is a file as lines, and whether its last line lacks a newline.
type version struct {
	lines []string
	noEOL bool
}

func parseVersion(b []byte) version {
	s := string(b)
	v := version{noEOL: s != "" && !strings.HasSuffix(s, "\n")}
	if s != "" {
		v.lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	return v
}

func (v version) bytes() []byte {
	if len(v.lines) == 0 {
		return nil
	}
	s := strings.Join(v.lines, "\n")
	if !v.noEOL {
		s += "\n"
	}
	return []byte(s)
}

func blobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// realHunk is one hunk of a real diff, read by its counts: its lines are
// ' ', '-', '+' and '\\' (git's "No newline at end of file").
type realHunk struct {
	oldStart, newStart int
	heading            string // git's function line after the @@
	anchor             string // a Codex "@@ <line>" to write
	lines              []hunkLine
}

type realDiff struct {
	name, oldID, newID string
	hunks              []realHunk
}

var realHunkRe = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$`)

// readRealDiff reads git's output strictly, by the hunks' counts.
func readRealDiff(t *testing.T, name, s string) realDiff {
	d := realDiff{name: name}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if ids, ok := strings.CutPrefix(l, "index "); ok {
			ids, _, _ = strings.Cut(ids, " ")
			d.oldID, d.newID, _ = strings.Cut(ids, "..")
		}
		m := realHunkRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		h := realHunk{oldStart: atoi(m[1]), newStart: atoi(m[3]), heading: strings.TrimSpace(m[5])}
		oldN, newN := count(m[2]), count(m[4])
		for i+1 < len(lines) && (oldN > 0 || newN > 0 || strings.HasPrefix(lines[i+1], "\\")) {
			i++
			l := lines[i]
			h.lines = append(h.lines, hunkLine{l[0], l[1:]})
			if l[0] != '+' && l[0] != '\\' {
				oldN--
			}
			if l[0] != '-' && l[0] != '\\' {
				newN--
			}
		}
		if oldN != 0 || newN != 0 {
			t.Fatalf("%s: a hunk does not add up", name)
		}
		d.hunks = append(d.hunks, h)
	}
	return d
}

// side is a hunk's old (' ', '-') or new (' ', '+') lines, and whether git
// marks that side's last line as lacking a newline.
func (h realHunk) side(kind byte) (lines []string, noEOL bool) {
	for i, l := range h.lines {
		switch {
		case l.kind == ' ' || l.kind == kind:
			lines = append(lines, l.text)
		case l.kind == '\\' && i > 0 && (h.lines[i-1].kind == ' ' || h.lines[i-1].kind == kind):
			noEOL = true
		}
	}
	return lines, noEOL
}

// applyStrict applies hunks at their line numbers, moved by the hunks before
// them; ok is false when the old lines are not there.
func applyStrict(v version, hs []realHunk) (version, bool) {
	out := version{lines: slices.Clone(v.lines), noEOL: v.noEOL}
	shift := 0
	for _, h := range hs {
		old, oldNoEOL := h.side('-')
		nw, newNoEOL := h.side('+')
		at := h.oldStart - 1 + shift
		if len(old) == 0 {
			at++
		}
		if at < 0 || at+len(old) > len(out.lines) || !slices.Equal(out.lines[at:at+len(old)], old) {
			return version{}, false
		}
		out.lines = slices.Replace(out.lines, at, at+len(old), nw...)
		if oldNoEOL || newNoEOL {
			out.noEOL = newNoEOL
		}
		shift += len(nw) - len(old)
	}
	return out, true
}

// corpusCase is one input made from a real diff, and the hunks it means.
type corpusCase struct {
	name, format, input string
	intended            []realHunk
}

// corpusCases rewrites a diff's hunks in every format, one hunk at a time
// with each mistake, and the whole diff at once.
func corpusCases(d realDiff, path string) []corpusCase {
	rng := rand.New(rand.NewPCG(uint64(len(d.name)), uint64(len(d.hunks))))
	var out []corpusCase
	for _, h := range d.hunks {
		for _, m := range mistakes {
			for _, format := range Formats {
				block, intended, ok := m.apply(h, format, rng)
				if ok {
					out = append(out, corpusCase{m.name, format, renderCase(format, path, []realHunk{block}, nil), []realHunk{intended}})
				}
			}
		}
	}
	for _, format := range Formats {
		plain := withoutEOLMarks(d.hunks, format)
		out = append(out, corpusCase{"whole commit", format, renderCase(format, path, plain, nil), plain})
	}
	skewed := slices.Clone(d.hunks)
	for i := range skewed {
		skewed[i], _, _ = wrongNumbers(skewed[i], FormatUnified, rng)
	}
	out = append(out, corpusCase{"whole commit, wrong @@ numbers", FormatUnified, renderCase(FormatUnified, path, skewed, nil), d.hunks})
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(d.hunks); i++ {
			hs := withoutEOLMarks(d.hunks[i:i+n], FormatAider)
			for _, format := range []string{FormatSeed, FormatAider} {
				out = append(out, corpusCase{fmt.Sprintf("%d hunks joined by ...", n), format, renderCase(format, path, hs, elide), hs})
			}
		}
	}
	return out
}

// withoutEOLMarks drops git's final-newline marks for the formats that
// cannot say them: those keep the file's final newline as it is.
func withoutEOLMarks(hs []realHunk, format string) []realHunk {
	if format == FormatUnified {
		return hs
	}
	out := slices.Clone(hs)
	for i := range out {
		out[i].lines = slices.DeleteFunc(slices.Clone(out[i].lines), func(l hunkLine) bool { return l.kind == '\\' })
	}
	return out
}

// A mistake turns a real hunk into the one a model writes, and says what
// the block then asks for; ok is false when it does not fit the hunk or the
// format.
type mistake struct {
	name  string
	apply func(h realHunk, format string, rng *rand.Rand) (block, intended realHunk, ok bool)
}

var mistakes = []mistake{
	{"as written", func(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
		h = withoutEOLMarks([]realHunk{h}, format)[0]
		return h, h, true
	}},
	{"wrong @@ numbers", wrongNumbers},
	{"no context lines", noContext},
	{"an interior blank line dropped", droppedBlank},
	{"trailing whitespace in FIND", trailingWhitespace},
	{"indentation shifted", dedented},
	{"... on one side only", oneSidedElision},
	{"an @@ anchor", anchored},
}

func wrongNumbers(h realHunk, format string, rng *rand.Rand) (realHunk, realHunk, bool) {
	b := h
	for b.oldStart == h.oldStart {
		b.oldStart = max(1, h.oldStart+rng.IntN(81)-40)
	}
	b.newStart = max(1, b.oldStart+rng.IntN(7)-3)
	return b, h, format == FormatUnified
}

// noContext drops the context lines before the first change and after the
// last one, as diff -U0 does; the numbers stay right.
func noContext(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	first := slices.IndexFunc(h.lines, func(l hunkLine) bool { return l.kind == '-' || l.kind == '+' })
	last := len(h.lines) - 1
	for last > first && (h.lines[last].kind == ' ' || h.lines[last].kind == '\\' && h.lines[last-1].kind == ' ') {
		last--
	}
	if first <= 0 && last == len(h.lines)-1 {
		return h, h, false
	}
	b := h
	b.lines = slices.Clone(h.lines[first : last+1])
	b.oldStart += first
	b.newStart += first
	return b, h, true
}

// droppedBlank leaves out one blank line inside the FIND: in a FIND/REPLACE
// block from the FIND alone (the model copied the file wrong); in a diff a
// blank context line from both sides, so that the block asks for the file
// without it.
func droppedBlank(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	var olds []int // the indexes of the old side's lines, in order
	for i, l := range h.lines {
		if l.kind == ' ' || l.kind == '-' {
			olds = append(olds, i)
		}
	}
	diff := format == FormatUnified || format == FormatCodex
	nonBlank := func(k int) bool { return strings.TrimSpace(h.lines[olds[k]].text) != "" }
	for k, i := range olds {
		l := h.lines[i]
		// inside: a non-blank line of the FIND before it and after it
		if strings.TrimSpace(l.text) != "" || diff && l.kind != ' ' ||
			!slices.ContainsFunc(olds[:k], func(j int) bool { return nonBlank(slices.Index(olds, j)) }) ||
			!slices.ContainsFunc(olds[k+1:], func(j int) bool { return nonBlank(slices.Index(olds, j)) }) {
			continue
		}
		b, intended := h, h
		b.lines = slices.Clone(h.lines)
		switch {
		case diff:
			b.lines = slices.Delete(b.lines, i, i+1)
			intended.lines = slices.Clone(h.lines)
			intended.lines[i].kind = '-'
		case l.kind == ' ':
			b.lines[i].kind = '+'
		default:
			b.lines = slices.Delete(b.lines, i, i+1)
		}
		return b, intended, true
	}
	return h, h, false
}

// trailingWhitespace adds spaces to the FIND's context lines.
func trailingWhitespace(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	if format != FormatSeed && format != FormatAider {
		return h, h, false
	}
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	b := h
	b.lines = nil
	for _, l := range h.lines {
		if l.kind == ' ' && strings.TrimSpace(l.text) != "" {
			b.lines = append(b.lines, hunkLine{'-', l.text + "  "}, hunkLine{'+', l.text})
			continue
		}
		b.lines = append(b.lines, l)
	}
	return b, h, true
}

// dedented takes the indentation every line of the hunk shares away from all
// of them, as a model does that quotes a method out of its class.
func dedented(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	common := -1
	for _, l := range h.lines {
		if l.kind == '\\' || strings.TrimSpace(l.text) == "" {
			continue
		}
		ind := l.text[:len(l.text)-len(strings.TrimLeft(l.text, " \t"))]
		if strings.Contains(ind, "\t") {
			return h, h, false
		}
		if common < 0 || len(ind) < common {
			common = len(ind)
		}
	}
	if common <= 0 {
		return h, h, false
	}
	b := h
	b.lines = slices.Clone(h.lines)
	for i, l := range b.lines {
		if l.kind != '\\' && strings.TrimSpace(l.text) != "" {
			b.lines[i].text = l.text[common:]
		}
	}
	return b, h, true
}

// oneSidedElision puts "..." for the middle of the FIND only.
func oneSidedElision(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	if format != FormatSeed && format != FormatAider {
		return h, h, false
	}
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	var ctx []int
	for i, l := range h.lines {
		if l.kind == ' ' {
			ctx = append(ctx, i)
		}
	}
	if len(ctx) < 3 {
		return h, h, false
	}
	b := h
	b.lines = slices.Clone(h.lines)
	mid := ctx[len(ctx)/2]
	b.lines[mid] = hunkLine{'-', "..."}
	b.lines = slices.Insert(b.lines, mid+1, hunkLine{'+', h.lines[mid].text})
	return b, h, true
}

// anchored gives a Codex section git's function line as its "@@" anchor.
func anchored(h realHunk, format string, _ *rand.Rand) (realHunk, realHunk, bool) {
	h = withoutEOLMarks([]realHunk{h}, format)[0]
	b := h
	b.anchor = h.heading
	return b, h, format == FormatCodex && h.heading != ""
}

// elide marks the rendering of hunks joined into one block by "..." lines.
var elide = &struct{}{}

// renderCase writes hunks in a format: one block (or hunk, or section) each, or
// with elide one FIND/REPLACE block whose pieces are joined by "...".
func renderCase(format, path string, hs []realHunk, join *struct{}) string {
	var b strings.Builder
	switch format {
	case FormatUnified:
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
		for _, h := range hs {
			old, _ := h.side('-')
			nw, _ := h.side('+')
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ %s\n", h.oldStart, len(old), h.newStart, len(nw), h.heading)
			for _, l := range h.lines {
				fmt.Fprintf(&b, "%c%s\n", l.kind, l.text)
			}
		}
	case FormatCodex:
		fmt.Fprintf(&b, "*** Begin Patch\n*** Update File: %s\n", path)
		for _, h := range hs {
			b.WriteString(strings.TrimSpace("@@ "+h.anchor) + "\n")
			for _, l := range h.lines {
				fmt.Fprintf(&b, "%c%s\n", l.kind, l.text)
			}
		}
		b.WriteString("*** End Patch\n")
	default:
		var blocks [][2][]string
		for i, h := range hs {
			find, _ := h.side('-')
			repl, _ := h.side('+')
			if join == nil || i == 0 {
				blocks = append(blocks, [2][]string{find, repl})
				continue
			}
			last := &blocks[len(blocks)-1]
			last[0] = append(append(last[0], "..."), find...)
			last[1] = append(append(last[1], "..."), repl...)
		}
		for i, bl := range blocks {
			if format == FormatSeed {
				fence := fenceFor(bl)
				fmt.Fprintf(&b, "### FILE: %s\n### CHANGE %d: corpus\nFIND:\n%s\n%s%s\nREPLACE WITH:\n%s\n%s%s\n\n", path, i+1, fence, joinLines(bl[0]), fence, fence, joinLines(bl[1]), fence)
				continue
			}
			fmt.Fprintf(&b, "%s\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n\n", path, joinLines(bl[0]), joinLines(bl[1]))
		}
	}
	return b.String()
}

// joinLines joins lines, each with its newline.
func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// fenceFor is a fence longer than any the block's lines hold.
func fenceFor(bl [2][]string) string {
	n := 3
	for _, side := range bl {
		for _, l := range side {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") {
				n = max(n, len(t)-len(strings.TrimLeft(t, "`"))+1)
			}
		}
	}
	return strings.Repeat("`", n)
}
