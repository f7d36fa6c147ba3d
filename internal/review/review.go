// Package review is the diff gate's review: it measures the change between two
// trees, shows it to a human, and records the human's approval.
package review

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/lookalike"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/symbols"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Target is what a review compares.
type Target struct {
	Base       string // tree-ish compared against: a commit, or the empty tree
	BaseCommit string // the commit the change is reviewed on; "" before the first commit
	Tree       string // the tree under review
	// Attributes are Tree's .gitattributes files when AttributesKnown (the
	// index listed them); otherwise git finds those that apply.
	Attributes      []gitx.TreeEntry
	AttributesKnown bool
}

// Staged is the change a commit of the index would make: the tree `git write-tree`
// writes (from GIT_INDEX_FILE in hooks) against HEAD, or the empty tree.
func Staged(ctx context.Context, repo *gitx.Repo) (Target, error) {
	// both are on every commit hook's path: read in process when they can be
	tree, attrs, known, err := repo.IndexTreeAttributes(ctx)
	if err != nil {
		return Target{}, err
	}
	t := Target{Tree: tree, Attributes: attrs, AttributesKnown: known}
	head, ok, err := repo.Head(ctx)
	if err != nil {
		return Target{}, err
	}
	if ok {
		t.Base, t.BaseCommit = head, head
		return t, nil
	}
	t.Base, err = repo.EmptyTree(ctx)
	return t, err
}

// Range is `git diff A...B`: B against its merge base with A. "A..B" means the
// same here, and a missing side is HEAD.
func Range(ctx context.Context, repo *gitx.Repo, spec string) (Target, error) {
	a, b, ok := strings.Cut(spec, "...")
	if !ok {
		a, b, ok = strings.Cut(spec, "..")
	}
	if !ok {
		return Target{}, fmt.Errorf("--range %q: write it as A..B", spec)
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	ca, err := repo.ResolveCommit(ctx, a)
	if err != nil {
		return Target{}, err
	}
	cb, err := repo.ResolveCommit(ctx, b)
	if err != nil {
		return Target{}, err
	}
	base, err := repo.MergeBase(ctx, ca, cb)
	if err != nil {
		return Target{}, err
	}
	tree, err := repo.TreeOf(ctx, cb)
	return Target{Base: base, BaseCommit: base, Tree: tree}, err
}

// Rules are the thresholds and the code-aware rule a configuration sets.
func Rules(c *config.Config) analysis.Rules {
	d := c.Diffgate
	return analysis.Rules{ChangeRatioThreshold: d.ChangeRatioThreshold, ReplacementRatio: d.ReplacementRatio,
		Symbols: d.Symbols, SymbolsIgnore: d.SymbolsIgnore, MaxShownBytes: d.MaxShownBytes}
}

// Analyze measures the change, compares the definitions of its Python and Go
// files (while the patch streams, from the patch itself), counts in its added
// lines the characters a terminal does not show, and applies the rules.
func Analyze(ctx context.Context, repo *gitx.Repo, t Target, rules analysis.Rules) (*analysis.Report, error) {
	var defs *definitions
	texts := &gitx.Texts{}
	if rules.Symbols {
		defs = startDefinitions()
		texts = defs.texts()
	}
	texts.CountAdded, texts.Keep = countAdded, keep(rules.MaxShownBytes)
	diffs, err := repo.DiffTreesTexts(ctx, t.Base, t.Tree, texts)
	var verdicts []symbols.Verdict
	if defs != nil {
		verdicts, err = defs.finish(ctx, repo, diffs, rules.SymbolsIgnore, err)
	}
	if err != nil {
		return nil, err
	}
	if err := resolveLookalikes(ctx, repo, diffs, keep(0)); err != nil {
		return nil, err
	}
	converted, untouched, err := checkouts(ctx, repo, t, diffs, keep(rules.MaxShownBytes))
	if err != nil {
		return nil, err
	}
	changes := make([]analysis.Change, len(diffs))
	for i, d := range diffs {
		changes[i] = Change(d)
		if verdicts != nil {
			changes[i].Symbols = verdicts[i]
		}
		if c, ok := converted[d.Path]; ok {
			changes[i].Converted, changes[i].Checkout, changes[i].CaseCheckout = c.names, c.checkout, c.caseCheckout
		}
		changes[i].Untouched = untouched[d.Path]
		if d.Status == 'R' {
			changes[i].Untouched = append(changes[i].Untouched, untouched[d.OldPath]...)
		}
	}
	return analysis.Build(t.Tree, t.Base, changes, rules), nil
}

// LongLine is the most characters a line may have before its file is
// flagged: folded, 2,000 characters are 25 lines of an 80-column screen.
const LongLine = 2000

// added is what the lines a change adds to a file hold, besides the
// characters a terminal does not show (gitx.Tally.N): names that read as
// others, and long lines.
type added struct {
	names   lookalike.File
	long    int64 // lines over LongLine characters
	longest int64 // characters of the longest line
}

// countAdded reads a line the change adds: the characters a terminal does
// not show, the names that read as others, a comment that runs on into the
// next line, its length. ASCII costs one look
// at eight bytes at a time.
func countAdded(line []byte, number int64, t *gitx.Tally) {
	n := len(line)
	ascii := term.ASCIIPrefix(line) == n
	if ascii && n <= LongLine && (n == 0 || line[n-1] != '\\' && line[n-1] != '\r') {
		return // the common case: no look at the line but for its bytes' top bits
	}
	a, _ := t.Notes.(*added)
	if a == nil {
		a = &added{}
		t.Notes = a
	}
	if len(line) > LongLine {
		chars := int64(len(line))
		if !ascii {
			chars = int64(utf8.RuneCount(line))
		}
		if chars > LongLine {
			a.long++
			a.longest = max(a.longest, chars)
		}
	}
	if !ascii {
		t.N += int64(term.CountInvisible(line))
	}
	a.names.Scan(line, number)
}

// resolveLookalikes reads the new version of the files whose added lines
// have names that read as others only in code, to tell code from comments
// and strings: one git cat-file for all, and none in the common case. A
// file over limit (the most a review holds) is not read: its names count.
func resolveLookalikes(ctx context.Context, repo *gitx.Repo, diffs []gitx.FileDiff, limit int) error {
	var waiting []*gitx.FileDiff
	var ids []string
	for i := range diffs {
		if a, _ := diffs[i].Counted.Notes.(*added); a != nil && a.names.NeedsText(diffs[i].Path) {
			waiting = append(waiting, &diffs[i])
			ids = append(ids, diffs[i].NewOID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return repo.BlobTexts(ctx, ids, limit, func(i int, t gitx.Text) error {
		d := waiting[i]
		d.Counted.Notes.(*added).names.Resolve(d.Path, t.Data, !t.Over)
		return nil
	})
}

// Change converts what git measured into the analysis' input.
func Change(d gitx.FileDiff) analysis.Change {
	c := analysis.Change{
		Path: d.Path, OldPath: d.Path, Binary: d.Binary, Textual: d.Textual,
		Submodule:   d.OldMode == gitx.ModeGitlink || d.NewMode == gitx.ModeGitlink,
		ModeChanged: d.OldMode != 0 && d.NewMode != 0 && d.OldMode != d.NewMode,
		LinesBefore: d.LinesBefore, Added: d.Added, Deleted: d.Deleted,
		Invisible: d.Counted.N, Shown: d.Shown,
		// a rename takes one away; a copy leaves its source as it was
		AttributesFile: gitx.IsAttributesFile(d.Path) || (d.Status == 'R' && gitx.IsAttributesFile(d.OldPath)),
	}
	if a, _ := d.Counted.Notes.(*added); a != nil {
		c.Confusable, c.Lookalikes, c.RunOn = a.names.Count+int64(len(a.names.RunOn)), a.names.Names, a.names.RunOn
		c.LongLines, c.Longest = a.long, a.longest
	}
	for _, n := range lookalike.InPath(d.Path) { // the file's own name
		c.Confusable++
		if !slices.Contains(c.Lookalikes, n) {
			c.Lookalikes = append(slices.Clip(c.Lookalikes), n)
		}
	}
	switch d.Status {
	case 'A':
		c.Status, c.OldPath = analysis.Added, ""
	case 'D':
		c.Status = analysis.Deleted
	case 'R':
		c.Status, c.OldPath = analysis.Renamed, d.OldPath
	case 'C':
		c.Status, c.OldPath = analysis.Copied, d.OldPath
	case 'T':
		c.Status = analysis.TypeChanged
	default:
		c.Status = analysis.Modified
	}
	return c
}

// keep is how long a line the patch scanner holds whole: every line of a
// file the review shows (one over the limit puts its file over it too), so
// that no character in it goes uncounted or unshown.
func keep(maxShown int64) int {
	if maxShown <= 0 { // no limit: as much as it may be
		maxShown = config.MaxShownCeiling
	}
	return int(min(maxShown, config.MaxShownCeiling))
}

// Record stores a human's approval of the target, bound to its tree and the commit
// it was reviewed on.
func Record(ctx context.Context, store *state.Store, t Target, rep *analysis.Report, message, source string) (state.Approval, error) {
	a := state.Approval{
		Tree: t.Tree, Parent: t.BaseCommit, Time: time.Now().UTC().Truncate(time.Second),
		Message: message, Flagged: append([]string{}, rep.Flagged...), By: "tty", Source: source,
	}
	err := store.Update(ctx, func(st *state.State) error {
		st.AddApproval(a)
		return nil
	})
	if err != nil {
		return a, err
	}
	return a, store.Audit(ctx, state.AuditEntry{
		Command: "diffgate " + source, Tree: t.Tree, Parent: t.BaseCommit, Flagged: cleanAll(rep.Flagged),
		ApprovedBy: "tty", Outcome: "approved", Detail: state.CleanPath(message),
	})
}

// TrailerKey names the trailer of a commit that lands an approval.
const TrailerKey = commitmsg.ApprovedKey

// Trailer is the trailer recording an approval of tree at time at: what git
// diffgate's prepare-commit-msg hook adds, and git tdd's own commits carry.
func Trailer(at time.Time, tree string) string {
	return commitmsg.FormatApproval(at, tree)
}

// Log records an outcome that approved nothing: "rejected" by a human, or
// "refused" when no human could be asked.
func Log(ctx context.Context, store *state.Store, t Target, rep *analysis.Report, source, outcome, detail string) error {
	return store.Audit(ctx, state.AuditEntry{
		Command: "diffgate " + source, Tree: t.Tree, Parent: t.BaseCommit, Flagged: cleanAll(rep.Flagged),
		Outcome: outcome, Detail: detail,
	})
}

func cleanAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = state.CleanPath(p)
	}
	return out
}
