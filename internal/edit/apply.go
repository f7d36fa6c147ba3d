package edit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/term"
)

// The codes of an outcome, stable for --json.
const (
	Applied        = "applied"
	AlreadyApplied = "already-applied"
	NotFound       = "not-found"
	Ambiguous      = "ambiguous"
	Overlap        = "overlap"
	EmptyFind      = "empty-find"
	Malformed      = "malformed" // "..." lines that do not pair up
)

// Outcome is what happened to one block.
type Outcome struct {
	Block   int    `json:"block"`
	File    string `json:"file"`
	Format  string `json:"format"`
	Code    string `json:"code"`
	Tier    Tier   `json:"tier,omitempty"`
	Start   int    `json:"start,omitempty"` // 1-based lines of the result that hold the replacement
	End     int    `json:"end,omitempty"`
	Matches []int  `json:"matches,omitempty"` // 1-based first lines of every match, when ambiguous
	// Tie is how many equal matches a hunk's @@ line numbers chose among.
	Tie int `json:"tie,omitempty"`
	// Pieces are where the pieces of a block with ... lines went.
	Pieces  []Piece `json:"pieces,omitempty"`
	Message string  `json:"message"`
	Detail  string  `json:"detail,omitempty"` // the closest region, or the context that would disambiguate
}

// Piece is the 1-based lines of the result that hold one piece of a block.
type Piece struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Failed reports whether the outcome stops the whole patch.
func (o Outcome) Failed() bool { return o.Code != Applied && o.Code != AlreadyApplied }

// ApplyAll applies blocks in order, each to the result of the ones before, and
// returns the new text; any failed outcome means the text must not be written.
// A nil t is a file that does not exist, a nil result one the blocks deleted.
// A block that would edit lines an earlier block changed is an overlap.
func ApplyAll(t *Text, file string, blocks []Block) (*Text, []Outcome) {
	st := &fileState{}
	if t != nil {
		st.set(&Text{BOM: t.BOM, Lines: append([]Line{}, t.Lines...)})
	}
	var out []Outcome
	for _, b := range blocks {
		o := st.apply(b)
		o.Block, o.File, o.Format = b.Index, file, b.Format
		out = append(out, o)
	}
	return st.text, out
}

// fileState is one file as the blocks before the current one left it.
type fileState struct {
	text    *Text        // nil: the file does not exist
	idx     *hashedLines // kept in step with text, not rebuilt for each block
	changed []span       // in the current text's coordinates
	shift   int          // lines added less lines removed so far: where a hunk's old numbers now point
	cursor  int          // where the last Codex section ended: the next one's anchors come after it
}

type span struct{ start, end int }

func (st *fileState) set(t *Text) {
	st.text, st.idx, st.changed = t, nil, nil
	if t != nil {
		st.idx = newHashedLines(t.Strings())
	}
}

func (st *fileState) splice(from, to int, repl []string) {
	st.text.Splice(from, to, repl)
	st.idx.splice(from, to, repl)
	d := len(repl) - (to - from)
	for i := range st.changed {
		if st.changed[i].start >= to {
			st.changed[i].start += d
			st.changed[i].end += d
		}
	}
	st.changed = append(st.changed, span{from, from + len(repl)})
	st.shift += d
}

func (st *fileState) apply(b Block) Outcome {
	switch {
	case b.Action == AddFile:
		return st.add(b)
	case b.Action == DeleteFile:
		return st.delete(b)
	case st.text == nil && len(b.Find) == 0 && len(b.Anchors) == 0:
		st.set(&Text{})
	case st.text == nil:
		return Outcome{Code: NotFound, Message: "the file does not exist"}
	}
	return st.edit(b)
}

// add writes the block as the file's whole content; over an existing file
// its BOM and line endings are kept.
func (st *fileState) add(b Block) Outcome {
	if st.text == nil {
		st.set(&Text{})
		st.splice(0, 0, b.Replace)
		st.finalNewline(b, len(b.Replace))
		st.changed = nil // later blocks can only be for the new content: no overlap
		return Outcome{Code: Applied, Tier: Exact, Start: 1, End: len(b.Replace), Message: "created the file"}
	}
	want := &Text{BOM: st.text.BOM, Lines: append([]Line{}, st.text.Lines...)}
	before := len(want.Lines)
	want.Splice(0, before, b.Replace)
	if b.FinalNewline != 0 {
		setFinalNewline(want, b.FinalNewline)
	}
	if string(want.Bytes()) == string(st.text.Bytes()) {
		return Outcome{Code: AlreadyApplied, Tier: Exact, Start: 1, End: len(b.Replace), Message: "already applied: the file has this content"}
	}
	st.set(want)
	st.changed = []span{{0, len(b.Replace)}}
	return Outcome{Code: Applied, Tier: Exact, Start: 1, End: len(b.Replace),
		Message: fmt.Sprintf("replaced the whole file (%d → %d lines)", before, len(b.Replace))}
}

// delete removes the file, which must hold the block's lines when it has any.
func (st *fileState) delete(b Block) Outcome {
	if st.text == nil {
		return Outcome{Code: AlreadyApplied, Message: "already applied: the file does not exist"}
	}
	lines := st.idx.s
	if len(b.Find) > 0 {
		ms := st.idx.find(b.Find)
		if len(ms) != 1 || ms[0].Start != 0 || ms[0].End != len(lines) {
			o := notFound(st.idx, b.Find)
			o.Message = "the file does not hold the lines its deletion lists; nothing was deleted"
			return o
		}
	}
	st.set(nil)
	return Outcome{Code: Applied, Message: fmt.Sprintf("deletes the file (%s)", term.Count(len(lines), "line", "lines"))}
}

// edit replaces the block's FIND, found where the block says, with its REPLACE.
func (st *fileState) edit(b Block) Outcome {
	lines := st.idx.s
	from, to := 0, len(lines)
	if len(b.Anchors) > 0 {
		var o Outcome
		var ok bool
		if from, to, o, ok = st.anchored(b); !ok {
			return o
		}
	}
	if len(b.Find) == 0 {
		return st.insert(b, from)
	}
	ms := st.idx.findIn(b.Find, from, to)
	if b.AtEOF {
		ms = slices.DeleteFunc(ms, func(m Match) bool { return m.End != len(lines) })
	}
	if len(ms) == 0 && elided(b) {
		return st.elide(b)
	}
	if at, ok := applied(st.idx, b, ms); ok {
		return Outcome{Code: AlreadyApplied, Tier: Exact, Start: at.Start + 1, End: at.End,
			Message: fmt.Sprintf("already applied: the replacement is at lines %d–%d", at.Start+1, at.End)}
	}
	tie := 0
	if len(ms) > 1 {
		if m, ok := st.byLineNumbers(b, ms); ok {
			tie, ms = len(ms), []Match{m}
		}
	}
	switch {
	case len(ms) == 0:
		return notFound(st.idx, b.Find)
	case len(ms) > 1:
		return ambiguous(lines, ms, len(b.Find))
	}
	return st.replace(b, ms[0], tie)
}

// replace puts the block's REPLACE in the place of a match.
func (st *fileState) replace(b Block, m Match, tie int) Outcome {
	for _, s := range st.changed {
		if overlaps(m, s) {
			return Outcome{Code: Overlap, Tier: m.Tier, Start: m.Start + 1, End: m.End,
				Message: fmt.Sprintf("it edits lines %d–%d, which an earlier block changed; make them one block", m.Start+1, m.End)}
		}
	}
	repl := b.Replace
	if m.reindent != nil {
		repl = m.reindent(repl)
	}
	st.splice(m.Start, m.End, repl)
	st.finalNewline(b, m.Start+len(repl))
	st.cursor = m.Start + len(repl)
	o := Outcome{Code: Applied, Tier: m.Tier, Start: m.Start + 1, End: m.Start + len(repl), Tie: tie}
	o.Message = fmt.Sprintf("applied at lines %d–%d (%s match%s)", m.Start+1, m.End, m.Tier, TieNote(tie))
	return o
}

// TieNote says that a hunk's @@ line numbers chose its match among tie equal ones.
func TieNote(tie int) string {
	if tie == 0 {
		return ""
	}
	return fmt.Sprintf("; its @@ line numbers chose it among %d equal matches", tie)
}

// insert places a block with nothing to find: into an empty file, after its
// anchor, or at the end of the file for Codex's "*** End of File".
func (st *fileState) insert(b Block, after int) Outcome {
	lines := st.idx.s
	at := 0
	switch {
	case len(b.Anchors) > 0:
		at = after
	case b.AtEOF:
		at = len(lines)
	case len(lines) > 0 && b.Format == FormatCodex:
		return Outcome{Code: EmptyFind, Message: "a section of added lines alone says nowhere where they go: give context lines, an @@ line, or *** End of File"}
	case len(lines) > 0:
		return Outcome{Code: EmptyFind, Message: "an empty FIND only creates a new file, and this one has content"}
	}
	st.splice(at, at, b.Replace)
	st.finalNewline(b, at+len(b.Replace))
	st.cursor = at + len(b.Replace)
	msg := fmt.Sprintf("inserted at lines %d–%d", at+1, at+len(b.Replace))
	if len(lines) == 0 {
		msg = "created the file"
	}
	return Outcome{Code: Applied, Tier: Exact, Start: at + 1, End: at + len(b.Replace), Message: msg}
}

// finalNewline applies a diff's "\ No newline at end of file" when the
// replacement ends the file.
func (st *fileState) finalNewline(b Block, end int) {
	if b.FinalNewline != 0 && end == len(st.text.Lines) {
		setFinalNewline(st.text, b.FinalNewline)
	}
}

func setFinalNewline(t *Text, want int) {
	if len(t.Lines) == 0 {
		return
	}
	last := &t.Lines[len(t.Lines)-1]
	switch {
	case want < 0:
		last.EOL = ""
	case last.EOL == "":
		last.EOL = t.EOL()
	}
}

// anchored finds a Codex section's "@@" lines in order, each the first line
// after the one before (or after the previous section) that reads the same,
// spaces around it aside. The section is looked for between the last anchor
// and the next line like it: inside what the anchor names, as far as a line
// can tell.
func (st *fileState) anchored(b Block) (from, to int, o Outcome, ok bool) {
	lines := st.idx.s
	at := st.cursor - 1
	for _, a := range b.Anchors {
		want := strings.TrimSpace(a)
		i := at + 1
		for i < len(lines) && strings.TrimSpace(lines[i]) != want {
			i++
		}
		if i >= len(lines) {
			return 0, 0, Outcome{Code: NotFound, Message: fmt.Sprintf("the @@ line %q is not in the file after line %d", term.Line(want, 80), at+1)}, false
		}
		at = i
	}
	want := strings.TrimSpace(b.Anchors[len(b.Anchors)-1])
	to = at + 1
	for to < len(lines) && strings.TrimSpace(lines[to]) != want {
		to++
	}
	return at + 1, to, Outcome{}, true
}

// byLineNumbers breaks a tie between equal matches with a unified diff
// hunk's header, when its numbers point exactly at one of them: the new
// start, or the old start moved by what the hunks before it added and removed.
func (st *fileState) byLineNumbers(b Block, ms []Match) (Match, bool) {
	var hit []Match
	for _, m := range ms {
		if b.NewStart > 0 && m.Start+1 == b.NewStart || b.OldStart > 0 && m.Start+1 == b.OldStart+st.shift {
			hit = append(hit, m)
		}
	}
	if len(hit) != 1 {
		return Match{}, false
	}
	return hit[0], true
}

// applied tells a block whose change is already in the file: its replacement
// is there exactly and once, has a line the FIND lacks, and the FIND text is
// either gone or only the part of the replacement it was kept in.
func applied(idx *hashedLines, b Block, ms []Match) (Match, bool) {
	if !addsLines(b.Find, b.Replace) || len(ms) > 1 || len(ms) == 1 && !containsRun(b.Replace, b.Find) {
		return Match{}, false // (the common case, decided without a scan of the file)
	}
	rs := idx.exact(b.Replace)
	if len(rs) != 1 {
		return Match{}, false
	}
	r := rs[0]
	switch {
	case len(ms) == 0 && replacedHere(idx, b.Find, r):
		return r, true
	case len(ms) == 1 && ms[0].Start >= r.Start && ms[0].End <= r.End && len(b.Replace) > len(b.Find):
		return r, true
	}
	return Match{}, false
}

// containsRun reports whether sub occurs in ls as consecutive lines.
func containsRun(ls, sub []string) bool {
	for i := 0; i+len(sub) <= len(ls); i++ {
		if slices.Equal(ls[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// addsLines reports whether repl has a non-blank line that find does not:
// only then can its presence tell that the block was applied. (A block that
// only deletes has a replacement that was there before, and a FIND copied
// wrong must not pass for one already applied.)
func addsLines(find, repl []string) bool {
	for _, r := range repl {
		if trimRight(r) != "" && !slices.Contains(find, r) {
			return true
		}
	}
	return false
}

func overlaps(m Match, s span) bool {
	if s.start == s.end { // an earlier deletion: overlapping if strictly inside
		return m.Start < s.start && s.start < m.End
	}
	return m.Start < s.end && s.start < m.End
}

// replacedHere reports whether find, which is not in the file, was replaced
// at r: nothing resembles it any more, or what resembles it most is there.
// A replacement found elsewhere (code written twice) is not the block's.
func replacedHere(x *hashedLines, find []string, r Match) bool {
	starts, _ := x.closest(find)
	if len(starts) == 0 {
		return true
	}
	for _, s := range starts {
		if s < r.End && r.Start < s+len(find) {
			return true
		}
	}
	return false
}

// notFound describes the closest region of the file and its first difference.
func notFound(x *hashedLines, find []string) Outcome {
	lines := x.s
	o := Outcome{Code: NotFound, Message: "the FIND text is not in the file"}
	var block strings.Builder
	block.WriteString("FIND:\n")
	for _, f := range find {
		fmt.Fprintf(&block, "       | %s\n", f)
	}
	starts, _ := x.closest(find)
	if len(starts) == 0 {
		o.Detail = block.String() + "nothing in the file resembles it"
		return o
	}
	best := starts[0]
	end := min(best+len(find), len(lines))
	d := &block
	fmt.Fprintf(d, "the closest region is lines %d–%d:\n", best+1, end)
	for i := best; i < end; i++ {
		fmt.Fprintf(d, "  %4d | %s\n", i+1, lines[i])
	}
	for j := 0; j < len(find); j++ {
		if best+j >= len(lines) {
			fmt.Fprintf(d, "the file ends before the block's line %d: %q", j+1, find[j])
			break
		}
		if lines[best+j] != find[j] {
			fmt.Fprintf(d, "first difference at line %d: the file has %q, the block has %q", best+j+1, lines[best+j], find[j])
			break
		}
	}
	o.Detail = strings.TrimRight(d.String(), "\n")
	return o
}

// ambiguous lists every match and the smallest context that would tell them apart.
func ambiguous(lines []string, ms []Match, n int) Outcome {
	o := Outcome{Code: Ambiguous, Tier: ms[0].Tier}
	var at []string
	for _, m := range ms {
		o.Matches = append(o.Matches, m.Start+1)
		at = append(at, fmt.Sprint(m.Start+1))
	}
	o.Message = fmt.Sprintf("the FIND text matches %d places (%s match), at lines %s; nothing was applied", len(ms), ms[0].Tier, strings.Join(at, ", "))
	for k := 1; k <= 5; k++ {
		if unique(ms, func(m Match) string { return context(lines, m.Start-k, m.Start) }) {
			o.Detail = fmt.Sprintf("include the %s before the FIND text to make it unique:%s", term.Count(k, "line", "lines"), listContext(lines, ms, func(m Match) (int, int) { return m.Start - k, m.Start }))
			return o
		}
		if unique(ms, func(m Match) string { return context(lines, m.End, m.End+k) }) {
			o.Detail = fmt.Sprintf("include the %s after the FIND text to make it unique:%s", term.Count(k, "line", "lines"), listContext(lines, ms, func(m Match) (int, int) { return m.End, m.End + k }))
			return o
		}
	}
	o.Detail = "the places look alike for 5 lines around them; include more context"
	return o
}

func context(lines []string, from, to int) string {
	if from < 0 || to > len(lines) {
		return "\x00" // outside the file: distinct from any text
	}
	return strings.Join(lines[from:to], "\n")
}

func unique(ms []Match, key func(Match) string) bool {
	seen := map[string]bool{}
	for _, m := range ms {
		k := key(m)
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

func listContext(lines []string, ms []Match, r func(Match) (int, int)) string {
	var b strings.Builder
	for _, m := range ms {
		from, to := r(m)
		fmt.Fprintf(&b, "\n  the match at line %d:", m.Start+1)
		for i := max(from, 0); i < min(to, len(lines)); i++ {
			fmt.Fprintf(&b, "\n  %4d | %s", i+1, lines[i])
		}
	}
	return b.String()
}
