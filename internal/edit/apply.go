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
)

// Outcome is what happened to one block.
type Outcome struct {
	Block   int    `json:"block"`
	File    string `json:"file"`
	Code    string `json:"code"`
	Tier    Tier   `json:"tier,omitempty"`
	Start   int    `json:"start,omitempty"` // 1-based lines of the result that hold the replacement
	End     int    `json:"end,omitempty"`
	Matches []int  `json:"matches,omitempty"` // 1-based first lines of every match, when ambiguous
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"` // the closest region, or the context that would disambiguate
}

// Failed reports whether the outcome stops the whole patch.
func (o Outcome) Failed() bool { return o.Code != Applied && o.Code != AlreadyApplied }

// ApplyAll applies blocks in order, each to the result of the ones before, and
// returns the new text; any failed outcome means the text must not be written.
// A block that would edit lines an earlier block changed is an overlap.
func ApplyAll(t *Text, file string, blocks []Block) (*Text, []Outcome) {
	cur := &Text{BOM: t.BOM, Lines: append([]Line{}, t.Lines...)}
	idx := newHashedLines(cur.Strings()) // kept in step with cur, not rebuilt for each block
	var changed []span                   // in the current text's coordinates
	var out []Outcome
	for _, b := range blocks {
		o := apply(cur, idx, b, &changed)
		o.Block, o.File = b.Index, file
		out = append(out, o)
	}
	return cur, out
}

type span struct{ start, end int }

func apply(t *Text, idx *hashedLines, b Block, changed *[]span) Outcome {
	lines := idx.s
	splice := func(from, to int, repl []string) {
		t.Splice(from, to, repl)
		idx.splice(from, to, repl)
	}
	if len(b.Find) == 0 {
		if len(lines) > 0 {
			return Outcome{Code: EmptyFind, Message: "an empty FIND only creates a new file, and this one has content"}
		}
		splice(0, 0, b.Replace)
		*changed = append(*changed, span{0, len(b.Replace)})
		return Outcome{Code: Applied, Tier: Exact, Start: 1, End: len(b.Replace), Message: "created the file"}
	}
	ms := idx.find(b.Find)
	if at, ok := applied(idx, b, ms); ok {
		return Outcome{Code: AlreadyApplied, Tier: Exact, Start: at.Start + 1, End: at.End,
			Message: fmt.Sprintf("already applied: the replacement is at lines %d–%d", at.Start+1, at.End)}
	}
	switch {
	case len(ms) == 0:
		return notFound(lines, b.Find)
	case len(ms) > 1:
		return ambiguous(lines, ms, len(b.Find))
	}
	m := ms[0]
	for _, s := range *changed {
		if overlaps(m, s) {
			return Outcome{Code: Overlap, Tier: m.Tier, Start: m.Start + 1, End: m.End,
				Message: fmt.Sprintf("it edits lines %d–%d, which an earlier block changed; make them one block", m.Start+1, m.End)}
		}
	}
	repl := b.Replace
	if m.reindent != nil {
		repl = m.reindent(repl)
	}
	splice(m.Start, m.End, repl)
	shift := len(repl) - (m.End - m.Start)
	for i := range *changed {
		if (*changed)[i].start >= m.End {
			(*changed)[i].start += shift
			(*changed)[i].end += shift
		}
	}
	*changed = append(*changed, span{m.Start, m.Start + len(repl)})
	o := Outcome{Code: Applied, Tier: m.Tier, Start: m.Start + 1, End: m.Start + len(repl)}
	o.Message = fmt.Sprintf("applied at lines %d–%d (%s match)", m.Start+1, m.End, m.Tier)
	return o
}

// applied tells a block whose change is already in the file: its replacement
// is there exactly and once, has more than blank lines, and the FIND text is
// either gone or only the part of the replacement it was kept in.
func applied(idx *hashedLines, b Block, ms []Match) (Match, bool) {
	if countNonBlank(b.Replace) == 0 || len(ms) > 1 || len(ms) == 1 && !containsRun(b.Replace, b.Find) {
		return Match{}, false // (the common case, decided without a scan of the file)
	}
	rs := idx.exact(b.Replace)
	if len(rs) != 1 {
		return Match{}, false
	}
	r := rs[0]
	switch {
	case len(ms) == 0:
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

func countNonBlank(ls []string) int {
	n := 0
	for _, l := range ls {
		if trimRight(l) != "" {
			n++
		}
	}
	return n
}

func overlaps(m Match, s span) bool {
	if s.start == s.end { // an earlier deletion: overlapping if strictly inside
		return m.Start < s.start && s.start < m.End
	}
	return m.Start < s.end && s.start < m.End
}

// notFound describes the closest region of the file and its first difference.
func notFound(lines, find []string) Outcome {
	o := Outcome{Code: NotFound, Message: "the FIND text is not in the file"}
	var block strings.Builder
	block.WriteString("FIND:\n")
	for _, f := range find {
		fmt.Fprintf(&block, "       | %s\n", f)
	}
	best, bestScore := -1, 0
	for i := 0; i < len(lines); i++ {
		score := 0
		for j := 0; j < len(find) && i+j < len(lines); j++ {
			if strings.TrimSpace(lines[i+j]) == strings.TrimSpace(find[j]) && strings.TrimSpace(find[j]) != "" {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		o.Detail = block.String() + "nothing in the file resembles it"
		return o
	}
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
