package gitx

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// FileDiff is one changed file between two trees: its exact paths, modes and ids
// from the raw listing, its line counts from the patch, and the old blob's lines.
type FileDiff struct {
	RawEntry
	Binary      bool
	Added       int64
	Deleted     int64
	LinesBefore int64
}

// diffOptions make diff-tree's output independent of the user's configuration:
// no colour, no external diff or textconv, fixed prefixes, full ids, three lines
// of context, whole-tree paths, and the same rename and copy detection for the
// listing and the patch so that the two pair up one to one.
var diffOptions = []string{"-r", "-M", "-C", "--no-relative"}

var patchOptions = []string{
	"-p", "--full-index", "--binary", "--no-color", "--no-ext-diff", "--no-textconv",
	"--src-prefix=a/", "--dst-prefix=b/", "--unified=3",
}

// RawDiff lists what changed between two trees, with exact (-z) paths.
func (r *Repo) RawDiff(ctx context.Context, base, tree string) ([]RawEntry, error) {
	args := append([]string{"diff-tree", "-z", "--raw", "--no-abbrev"}, diffOptions...)
	out, err := r.output(ctx, append(args, base, tree)...)
	if err != nil {
		return nil, err
	}
	return ParseRaw(out)
}

// DiffTrees compares two trees. The parsed patch must account for every file of
// the raw listing: a mismatch is an error, never "no changes".
func (r *Repo) DiffTrees(ctx context.Context, base, tree string) ([]FileDiff, error) {
	raw, err := r.RawDiff(ctx, base, tree)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	diffs := make([]FileDiff, len(raw))
	for i := range raw {
		diffs[i].RawEntry = raw[i]
	}
	counter, err := r.startLineCounter(ctx, func(i int, n int64) { diffs[i].LinesBefore = n })
	if err != nil {
		return nil, err
	}
	p := &pairing{diffs: diffs, counter: counter}
	err = r.StreamPatch(ctx, base, tree, Visitor{Done: p.section})
	if err == nil {
		err = p.complete()
	}
	if cerr := counter.finish(err != nil); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return diffs, nil
}

// StreamPatch runs diff-tree -p between two trees and scans its output.
func (r *Repo) StreamPatch(ctx context.Context, base, tree string, v Visitor) error {
	args := append(append([]string{"diff-tree"}, diffOptions...), patchOptions...)
	args = append(args, base, tree)
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	serr := ScanPatch(out, v)
	if serr != nil {
		io.Copy(io.Discard, out) // let git finish writing before we wait for it
	}
	werr := cmd.Wait()
	if werr != nil {
		return commandError(ctx, args, werr, stderr.String())
	}
	return serr
}

// pairing matches patch sections to raw entries, which git writes in one order.
type pairing struct {
	diffs    []FileDiff
	counter  *lineCounter
	next     int
	typeHalf bool // the deletion half of a type change was seen; its creation follows
}

func (p *pairing) section(s *Section) error {
	if p.typeHalf {
		d := &p.diffs[p.next-1]
		if !s.File.IsNew || s.File.NewName != d.Path {
			return p.mismatch(s)
		}
		p.typeHalf = false
		d.Binary = d.Binary || s.Binary
		d.Added += s.Added
		return nil
	}
	if p.next >= len(p.diffs) {
		return p.mismatch(s)
	}
	d := &p.diffs[p.next]
	if !sectionMatches(d, s) {
		return p.mismatch(s)
	}
	p.next++
	d.Binary, d.Added, d.Deleted = s.Binary, s.Added, s.Deleted
	switch d.Status {
	case 'D':
		d.LinesBefore = s.Deleted
	case 'T':
		d.LinesBefore = s.Deleted
		p.typeHalf = s.File.IsDelete
	case 'M', 'R', 'C':
		if !s.Binary && IsBlobMode(d.OldMode) {
			return p.counter.add(p.next-1, d.OldOID)
		}
	}
	return nil
}

func sectionMatches(d *FileDiff, s *Section) bool {
	f := s.File
	switch d.Status {
	case 'A':
		return f.IsNew && f.NewName == d.Path
	case 'D':
		return f.IsDelete && f.OldName == d.Path
	case 'R':
		return f.IsRename && f.OldName == d.OldPath && f.NewName == d.Path
	case 'C':
		return f.IsCopy && f.OldName == d.OldPath && f.NewName == d.Path
	case 'T':
		return (f.IsDelete && f.OldName == d.Path) || (f.OldName == d.Path && f.NewName == d.Path)
	default:
		return !f.IsNew && !f.IsDelete && f.OldName == d.Path && f.NewName == d.Path
	}
}

func (p *pairing) mismatch(s *Section) error {
	return fmt.Errorf("the patch does not match git's list of changed files at %q (%d listed): refusing to analyse a partial diff", s.Name(), len(p.diffs))
}

func (p *pairing) complete() error {
	if p.next != len(p.diffs) || p.typeHalf {
		return fmt.Errorf("git listed %d changed files but the patch accounts for %d: refusing to analyse a partial diff", len(p.diffs), p.next)
	}
	return nil
}
