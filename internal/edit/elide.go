package edit

import (
	"fmt"
	"slices"
	"strings"
)

// aider's "..." elision: a line "..." in both FIND and REPLACE stands for the
// same run of unchanged lines. Only FIND/REPLACE blocks have it (in a diff,
// "..." is a line of the file), and only when the block does not match as
// written: a "..." line can be code, such as a Python stub's body.

// elided reports whether a block leaves lines out with "...".
func elided(b Block) bool {
	return (b.Format == FormatSeed || b.Format == FormatAider) && (slices.ContainsFunc(b.Find, isElision) || slices.ContainsFunc(b.Replace, isElision))
}

func isElision(l string) bool { return strings.TrimSpace(l) == "..." }

// pieces splits lines at their "..." lines.
func pieces(ls []string) [][]string {
	out := [][]string{nil}
	for _, l := range ls {
		if isElision(l) {
			out = append(out, nil)
			continue
		}
		out[len(out)-1] = append(out[len(out)-1], l)
	}
	return out
}

// piece is one FIND piece's match and its replacement.
type piece struct {
	m    Match
	repl []string
}

// elide applies a block with "..." lines piece by piece: each FIND piece is
// looked for after the one before and must match once there; all of them
// match, or nothing is changed.
func (st *fileState) elide(b Block) Outcome {
	fp, rp := pieces(b.Find), pieces(b.Replace)
	if len(fp) != len(rp) {
		return Outcome{Code: Malformed, Message: fmt.Sprintf("a ... line stands for unchanged lines only when FIND and REPLACE have as many of them: FIND has %d, REPLACE has %d", len(fp)-1, len(rp)-1)}
	}
	ps, o, ok := st.matchPieces(fp, rp, false)
	if !ok {
		if at, ok := st.piecesApplied(fp, rp); o.Code == NotFound && ok {
			return Outcome{Code: AlreadyApplied, Tier: Exact, Start: at[0].m.Start + 1, End: at[len(at)-1].m.End,
				Message: fmt.Sprintf("already applied: the replacement's %d pieces are at lines %d–%d", len(at), at[0].m.Start+1, at[len(at)-1].m.End)}
		}
		return o
	}
	for _, p := range ps {
		for _, s := range st.changed {
			if overlaps(p.m, s) {
				return Outcome{Code: Overlap, Tier: p.m.Tier, Start: p.m.Start + 1, End: p.m.End,
					Message: fmt.Sprintf("it edits lines %d–%d, which an earlier block changed; make them one block", p.m.Start+1, p.m.End)}
			}
		}
	}
	return st.replacePieces(ps)
}

// piecesApplied tells a block with ... lines whose change is in the file: its
// REPLACE pieces are there exactly, in order, and each FIND piece that is
// not there was replaced where its REPLACE piece is (as for a whole block).
func (st *fileState) piecesApplied(fp, rp [][]string) ([]piece, bool) {
	if !addsLines(slices.Concat(fp...), slices.Concat(rp...)) {
		return nil, false
	}
	at, _, ok := st.matchPieces(rp, rp, true)
	if !ok {
		return nil, false
	}
	k := 0
	for i := range rp {
		if len(rp[i]) == 0 {
			continue
		}
		if len(st.idx.exact(fp[i])) == 0 && !replacedHere(st.idx, fp[i], at[k].m) {
			return nil, false
		}
		k++
	}
	return at, true
}

// matchPieces finds the FIND pieces in order. Empty pieces (a "..." at an end,
// or two together) are skipped when their REPLACE piece is empty too. With
// exact, only the exact tier counts (to tell a block already applied).
func (st *fileState) matchPieces(fp, rp [][]string, exact bool) ([]piece, Outcome, bool) {
	lines := st.idx.s
	var out []piece
	from := 0
	for i := range fp {
		f, r := fp[i], rp[i]
		if len(f) == 0 {
			if len(r) > 0 {
				return nil, Outcome{Code: Malformed, Message: fmt.Sprintf("piece %d of the block is empty in FIND and not in REPLACE: nothing says where its lines go", i+1)}, false
			}
			continue
		}
		var ms []Match
		if exact {
			ms = st.idx.exactIn(f, from, len(lines))
		} else {
			ms = st.idx.findIn(f, from, len(lines))
		}
		switch {
		case len(ms) == 0:
			o := notFound(st.idx, f)
			o.Message = fmt.Sprintf("piece %d of the FIND (between ... lines) is not in the file after line %d", i+1, from)
			return nil, o, false
		case len(ms) > 1:
			o := ambiguous(lines, ms, len(f))
			o.Message = fmt.Sprintf("piece %d of the FIND (between ... lines): %s", i+1, o.Message)
			return nil, o, false
		}
		out = append(out, piece{ms[0], r})
		from = ms[0].End
	}
	if len(out) == 0 {
		return nil, Outcome{Code: Malformed, Message: "the FIND has nothing but ... lines"}, false
	}
	return out, Outcome{}, true
}

// replacePieces splices the pieces last to first, so that the matches of the
// ones before stay where they were found.
func (st *fileState) replacePieces(ps []piece) Outcome {
	tier := Exact
	var at []string
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		repl := p.repl
		if p.m.reindent != nil {
			repl = p.m.reindent(repl)
		}
		st.splice(p.m.Start, p.m.End, repl)
		ps[i].repl = repl
		if slices.Index(tiers, p.m.Tier) > slices.Index(tiers, tier) {
			tier = p.m.Tier
		}
	}
	start, delta, end := ps[0].m.Start, 0, 0
	var where []Piece
	for _, p := range ps {
		s := p.m.Start + delta
		end = s + len(p.repl)
		where = append(where, Piece{s + 1, end})
		at = append(at, fmt.Sprintf("%d–%d", s+1, end))
		delta += len(p.repl) - (p.m.End - p.m.Start)
	}
	st.cursor = end
	return Outcome{Code: Applied, Tier: tier, Start: start + 1, End: end, Pieces: where,
		Message: fmt.Sprintf("applied in %d pieces at lines %s (%s match)", len(ps), strings.Join(at, ", "), tier)}
}
