package gitx

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileDiff is one changed file between two trees: its exact paths, modes and ids
// from the raw listing, its line counts from the patch, and the old blob's lines.
type FileDiff struct {
	RawEntry
	Binary      bool
	Textual     bool // binary to git (a NUL) but text for the most part
	Added       int64
	Deleted     int64
	LinesBefore int64
	Shown       int64 // bytes of the lines a review shows (Section.Shown)
	Counted     Tally // what Texts.CountAdded found in the added lines
}

// diffOptions make diff-tree's output independent of the user's configuration:
// whole-tree paths, and the same rename and copy detection for the listing and
// the patch so that the two pair up one to one.
var diffOptions = []string{"-r", "-M", "-C", "--no-relative"}

// patchOptions: no colour, no external diff or textconv, fixed prefixes, full
// ids, and every file as text: attributes (binary, -diff in .gitattributes,
// .git/info/attributes or core.attributesFile, all an agent's to write) must
// not hide a text file's content from the review. Binary is decided from the
// bytes instead, as git's heuristic does (Section.sniff).
var patchOptions = []string{
	"-p", "--full-index", "--text", "--no-color", "--no-ext-diff", "--no-textconv",
	"--src-prefix=a/", "--dst-prefix=b/",
}

// wholeFile is the context that makes each text file's patch one hunk whose
// header carries the old and new line counts: git reads both blobs to diff them
// anyway, so counting needs no second read of the old ones.
const wholeFile = "--unified=2147483647"

// DiffTrees compares two trees: one diff-tree that writes the exact (-z)
// listing of changed files and then their patch, or for a large change several
// at once (see diffSharded). The parsed patch must account for every file of
// the listing: a mismatch is an error, never "no changes".
func (r *Repo) DiffTrees(ctx context.Context, base, tree string) ([]FileDiff, error) {
	return r.DiffTreesTexts(ctx, base, tree, nil)
}

// diffWhole is DiffTreesTexts in one diff-tree, limited to the literal
// pathspecs when there are any.
func (r *Repo) diffWhole(ctx context.Context, base, tree string, pathspecs []string, texts *Texts) ([]FileDiff, error) {
	args := append([]string{"diff-tree", "-z", "--raw", "--no-abbrev"}, diffOptions...)
	args = append(append(args, patchOptions...), wholeFile, base, tree)
	if pathspecs != nil {
		args = append(append(args, "--"), pathspecs...)
	}
	var p pairing
	err := r.stream(ctx, args, func(out *bufio.Reader) error {
		raw, err := readRaw(out)
		if err != nil {
			return err
		}
		p.diffs = make([]FileDiff, len(raw))
		for i := range raw {
			p.diffs[i].RawEntry = raw[i]
		}
		return ScanPatch(out, p.visitor(texts))
	})
	if err != nil {
		return nil, err
	}
	if err := p.complete(); err != nil {
		return nil, err
	}
	return p.diffs, r.countUnhunked(ctx, &p)
}

// countUnhunked reads the old line counts the patch did not show: unchanged
// content (a pure rename or copy, a mode change), or a hunk that does not
// provably cover the whole file.
func (r *Repo) countUnhunked(ctx context.Context, p *pairing) error {
	if len(p.unhunked) == 0 {
		return nil
	}
	oids := make([]string, len(p.unhunked))
	for i, idx := range p.unhunked {
		oids[i] = p.diffs[idx].OldOID
	}
	counts, err := r.BlobLines(ctx, oids)
	if err != nil {
		return err
	}
	for i, idx := range p.unhunked {
		p.diffs[idx].LinesBefore = counts[i]
	}
	return nil
}

// StreamPatch runs diff-tree -p between two trees with three lines of context,
// as people read it, and scans its output.
func (r *Repo) StreamPatch(ctx context.Context, base, tree string, v Visitor) error {
	return r.scanPatch(ctx, base, tree, "--unified=3", v)
}

func (r *Repo) scanPatch(ctx context.Context, base, tree, context string, v Visitor) error {
	args := append(append([]string{"diff-tree"}, diffOptions...), patchOptions...)
	args = append(args, context, base, tree)
	return r.stream(ctx, args, func(out *bufio.Reader) error { return ScanPatch(out, v) })
}

// stream runs git and hands its standard output to read as it is written.
func (r *Repo) stream(ctx context.Context, args []string, read func(*bufio.Reader) error) error {
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
	defer trace(time.Now(), args)
	p, err := start(cmd)
	if err != nil {
		return err
	}
	growPipe(out)
	rerr := read(bufio.NewReaderSize(out, MaxLine))
	if rerr != nil {
		io.Copy(io.Discard, out) // let git finish writing before we wait for it
	}
	if werr := p.Wait(); werr != nil {
		return commandError(ctx, args, werr, stderr.String())
	}
	return rerr
}

// pairing matches patch sections to raw entries, which git writes in one order.
type pairing struct {
	diffs    []FileDiff
	unhunked []int // text entries whose old line count the patch did not show
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
		d.Textual = d.Binary && (d.Textual || !s.Binary) && s.Textual()
		d.Added += s.Added
		d.Shown += s.Shown
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
	d.Binary, d.Added, d.Deleted, d.Shown = s.Binary, s.Added, s.Deleted, s.Shown
	d.Textual = s.Binary && s.Textual()
	switch d.Status {
	case 'D', 'T':
		d.LinesBefore = s.Deleted
		p.typeHalf = d.Status == 'T' && s.File.IsDelete
	case 'M', 'R', 'C':
		d.LinesBefore = s.OldLines
		if !s.WholeOld() && !s.Binary && IsBlobMode(d.OldMode) {
			p.unhunked = append(p.unhunked, p.next-1)
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

// DiffTexts is the unified diff of two versions of a file, named name, made by
// git diff --no-index with explicit flags so no configuration changes it.
func (r *Repo) DiffTexts(ctx context.Context, name string, old, next []byte) (string, error) {
	dir, err := os.MkdirTemp("", "git-tdd-diff-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, old, 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(b, next, 0o600); err != nil {
		return "", err
	}
	out, err := r.output(ctx, "diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--unified=3",
		"--src-prefix=a/", "--dst-prefix=b/", "--", a, b)
	if err != nil && exitCode(err) != 1 { // 1: the texts differ
		return "", err
	}
	// name the file instead of the temp paths
	s := strings.NewReplacer("a/"+strings.TrimPrefix(a, "/"), "a/"+name, "b/"+strings.TrimPrefix(b, "/"), "b/"+name,
		"a"+a, "a/"+name, "b"+b, "b/"+name).Replace(string(out))
	return s, nil
}

// CountDiff counts the added and deleted lines of a unified diff's hunks.
func CountDiff(diff string) (added, deleted int64) {
	inHunks := false
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunks = true
		case !inHunks:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			deleted++
		}
	}
	return added, deleted
}
