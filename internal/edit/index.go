package edit

import (
	"hash/maphash"
	"slices"
	"strings"
)

// hashedLines is the text being patched, as strings with a hash each, kept in step
// through every splice: the exact tier then compares one word a line, which
// keeps 100 blocks into a 20,000-line file in a few milliseconds.
type hashedLines struct {
	seed maphash.Seed
	s    []string
	h    []uint64
	// t hashes each line with the spaces around it trimmed, for telling how
	// alike a region is; made when first needed.
	t []uint64
}

func newHashedLines(s []string) *hashedLines {
	x := &hashedLines{seed: maphash.MakeSeed(), s: s, h: make([]uint64, len(s))}
	for i, l := range s {
		x.h[i] = maphash.String(x.seed, l)
	}
	return x
}

func (x *hashedLines) splice(from, to int, repl []string) {
	h := make([]uint64, len(repl))
	for i, l := range repl {
		h[i] = maphash.String(x.seed, l)
	}
	x.s = slices.Replace(x.s, from, to, repl...)
	x.h = slices.Replace(x.h, from, to, h...)
	if x.t != nil {
		x.t = slices.Replace(x.t, from, to, x.trimmedHashes(repl)...)
	}
}

func (x *hashedLines) trimmedHashes(ls []string) []uint64 {
	out := make([]uint64, len(ls))
	for i, l := range ls {
		out[i] = maphash.String(x.seed, strings.TrimSpace(l))
	}
	return out
}

// closest returns the first lines of the regions most like find (the most of
// its non-blank lines in place, spaces around them aside), and how many lines
// that is; none when no line is alike.
func (x *hashedLines) closest(find []string) ([]int, int) {
	if x.t == nil {
		x.t = x.trimmedHashes(x.s)
	}
	want := map[uint64][]int{} // a non-blank line's hash → where find has it
	for j, h := range x.trimmedHashes(find) {
		if strings.TrimSpace(find[j]) != "" {
			want[h] = append(want[h], j)
		}
	}
	score := make(map[int]int)
	for i, h := range x.t {
		for _, j := range want[h] {
			if i >= j && strings.TrimSpace(x.s[i]) == strings.TrimSpace(find[j]) {
				score[i-j]++
			}
		}
	}
	var starts []int
	best := 0
	for s, n := range score {
		switch {
		case n > best:
			starts, best = []int{s}, n
		case n == best:
			starts = append(starts, s)
		}
	}
	slices.Sort(starts)
	return starts, best
}

// find is Find with the exact tier through the hashes.
func (x *hashedLines) find(find []string) []Match { return x.findIn(find, 0, len(x.s)) }

// findIn is find within lines [from, to).
func (x *hashedLines) findIn(find []string, from, to int) []Match {
	if len(find) == 0 {
		return nil
	}
	if ms := x.exactIn(find, from, to); len(ms) > 0 {
		return ms
	}
	ms := findTolerant(x.s[from:to], find)
	for i := range ms {
		ms[i].Start += from
		ms[i].End += from
	}
	return ms
}

// exact is the exact tier alone.
func (x *hashedLines) exact(find []string) []Match { return x.exactIn(find, 0, len(x.s)) }

func (x *hashedLines) exactIn(find []string, from, to int) []Match {
	if len(find) == 0 {
		return nil
	}
	want := make([]uint64, len(find))
	for i, l := range find {
		want[i] = maphash.String(x.seed, l)
	}
	var out []Match
	n := len(find)
	for i := from; i+n <= to; i++ {
		if x.h[i] == want[0] && slices.Equal(x.h[i:i+n], want) && slices.Equal(x.s[i:i+n], find) {
			out = append(out, Match{Start: i, End: i + n, Tier: Exact})
		}
	}
	return out
}
