// Package analysis applies the diff gate's rules (seed 000, DESIGN §4) to the line
// counts and lost definitions of a change: what was mostly rewritten, replaced or lost.
package analysis

import (
	"bytes"
	"encoding/base64"
	"math"
	"unicode/utf8"

	"github.com/git-tdd/git-tdd/internal/symbols"
)

// Status is how a file changed.
type Status string

// The statuses of DESIGN §4.
const (
	Added       Status = "added"
	Modified    Status = "modified"
	Deleted     Status = "deleted"
	Renamed     Status = "renamed"
	Copied      Status = "copied"
	TypeChanged Status = "type-changed"
)

// Reason says why a file needs review.
type Reason string

// The reasons a file is flagged, most serious first.
const (
	ReasonNone     Reason = ""
	ReasonDeleted  Reason = "deleted"
	ReasonReplaced Reason = "replaced"
	// ReasonRemovedDefinitions: a Python or Go definition is gone, neither
	// moved nor renamed.
	ReasonRemovedDefinitions Reason = "removed definitions"
	ReasonChanged            Reason = "changed"
	ReasonBinary             Reason = "binary"
	ReasonSubmodule          Reason = "submodule"
	// ReasonNotShown: the diff is over Rules.MaxShownBytes, so the review
	// does not print it; ReasonInvisible: the new side has characters a
	// terminal does not show. Either flags a file whatever else it is.
	ReasonNotShown  Reason = "not shown"
	ReasonInvisible Reason = "invisible"
	// ReasonConfusable: the added lines use names that read as others
	// (Cyrillic о in оk), see package lookalike; ReasonLongLines: an added
	// line is too long to read (a payload at the end of 1 MB of data).
	ReasonConfusable Reason = "confusable"
	ReasonLongLines  Reason = "long lines"
	// ReasonConverted: a checkout of the file is not its blob (attributes
	// or core.autocrlf convert it); ReasonAttributes: a .gitattributes file
	// changed, and with it how files check out.
	ReasonConverted  Reason = "converted"
	ReasonAttributes Reason = "attributes"
)

// Change is the input for one file: what git measured.
type Change struct {
	Path        string
	OldPath     string // the path in the base: the source of a rename or copy, "" when added
	Status      Status
	Binary      bool
	Textual     bool // binary by a NUL, but text for the most part: shown
	Submodule   bool // a gitlink (its content lives in another repository)
	ModeChanged bool
	LinesBefore int64 // lines of the old blob
	Added       int64
	Deleted     int64
	Symbols     symbols.Verdict // what became of its definitions
	Invisible   int64           // characters a terminal does not show, in the added lines
	Confusable  int64           // uses of names that read as others, and comments that run on, in the added lines
	Lookalikes  []string        // those names, each once
	RunOn       []int64         // the added lines whose // comment takes the next line in (C, C++)
	LongLines   int64           // added lines over the review's LongLine characters
	Longest     int64           // characters of the longest
	Shown       int64           // bytes of the lines the review would print
	// Converted names what makes a checkout of the file differ from its
	// blob ("working-tree-encoding=SHIFT_JIS"), and Checkout is what it
	// writes; AttributesFile: the file is a .gitattributes (either path).
	Converted      []string
	Checkout       *Checkout
	CaseCheckout   *Checkout // a case-insensitive file system's, when it converts otherwise
	AttributesFile bool
	Untouched      []Untouched // of a .gitattributes: the files it now converts
}

// Untouched is a file a change leaves as it was and whose checkout it
// converts all the same, by a .gitattributes it touches. Checkout is nil
// when the review did not check it out (too many to show).
type Untouched struct {
	Path      string
	Converted []string
	Checkout  *Checkout
}

// Checkout is what a checkout writes for a file whose attributes convert it:
// what git tdd's worktrees and CI's clone run, not the blob.
type Checkout struct {
	Text []byte // the first bytes, up to the review's limit
	Blob []byte // the blob's, as far, to mark the lines that differ
	Size int64
	Same bool   // byte for byte the blob, though a filter command ran
	Err  string // what git said when it could not check the file out
	// CaseInsensitive: what a checkout on a case-insensitive file system
	// (macOS, Windows) writes, where attribute patterns match whatever the case
	CaseInsensitive bool
}

// Binary reports whether the checkout is binary (a NUL in its first 8,000
// bytes, as git decides): like a binary file's, its bytes are not shown.
func (c *Checkout) Binary() bool {
	return bytes.IndexByte(c.Text[:min(len(c.Text), 8000)], 0) >= 0
}

// Cut reports whether the review holds, and shows, less than the whole
// text of a checkout that is: it is over the limit.
func (c *Checkout) Cut() bool {
	return c != nil && c.Err == "" && int64(len(c.Text)) < c.Size && !c.Binary()
}

// Rules are the thresholds; the zero value is not useful, start from Defaults.
type Rules struct {
	ChangeRatioThreshold float64 // requires_review when change_ratio is strictly greater
	ReplacementRatio     float64 // is_replacement when change_ratio is strictly greater, and
	// the file shrank below half its size
	Symbols       bool     // compare the definitions of Python and Go files
	SymbolsIgnore []string // globs of definition names left out
	MaxShownBytes int64    // a file whose diff is larger is not shown: flagged; 0: no limit
}

// DefaultMaxShownBytes is the diff a review shows of one file, at most: 1 MiB.
const DefaultMaxShownBytes = 1 << 20

// Defaults are the seed's constants, 0.5 and 0.8, the code-aware rule on, and
// a file's diff shown up to 1 MiB.
var Defaults = Rules{ChangeRatioThreshold: 0.5, ReplacementRatio: 0.8, Symbols: true, MaxShownBytes: DefaultMaxShownBytes}

// FileReport is the seed's FileChangeReport for one file.
type FileReport struct {
	Path           string   `json:"path"`
	OldPath        string   `json:"old_path"`
	Status         Status   `json:"status"`
	Binary         bool     `json:"binary"`
	Textual        bool     `json:"-"` // binary by a NUL, text for the most part: its lines are shown
	Submodule      bool     `json:"submodule"`
	ModeChanged    bool     `json:"mode_changed"`
	Invisible      int64    `json:"invisible"`  // characters a terminal does not show, in the added lines
	Confusable     int64    `json:"confusable"` // uses of names that read as others, in the added lines
	Lookalikes     []string `json:"-"`          // those names, each once
	RunOn          []int64  `json:"-"`          // the added lines whose // comment takes the next line in
	LongLines      int64    `json:"long_lines"` // added lines too long to read (over review.LongLine characters)
	Longest        int64    `json:"-"`          // characters of the longest
	NotShown       bool     `json:"not_shown"`  // something of the file is over the limit: the review does not print it all
	DiffOver       bool     `json:"-"`          // the diff is over the limit: not printed
	CheckoutOver   bool     `json:"-"`          // its checkout is over the limit: only its start is printed
	UnseenFiles    int      `json:"-"`          // of a .gitattributes: files it converts whose checkout is not printed whole
	ShownBytes     int64    `json:"-"`          // bytes of the lines the review prints
	ShownLimit     int64    `json:"-"`          // the MaxShownBytes it was measured against
	LinesBefore    int64    `json:"lines_before"`
	LinesAfter     int64    `json:"lines_after"`
	LinesAdded     int64    `json:"lines_added"`
	LinesDeleted   int64    `json:"lines_deleted"`
	ChangeRatio    float64  `json:"change_ratio"`
	IsReplacement  bool     `json:"is_replacement"`
	RequiresReview bool     `json:"requires_review"`
	Reason         Reason   `json:"reason"`
	// The code-aware rule's findings; never null.
	RemovedSymbols []symbols.Ref    `json:"removed_symbols"`
	MovedSymbols   []symbols.Move   `json:"moved_symbols"`
	RenamedSymbols []symbols.Rename `json:"renamed_symbols"`
	SymbolsNote    string           `json:"symbols_note"` // why definitions were not compared, or cannot be read
	// What makes a checkout differ from the blob; never null.
	Converted      []string    `json:"converted"`
	Checkout       *Checkout   `json:"-"`
	CaseCheckout   *Checkout   `json:"-"` // on case-insensitive file systems (macOS, Windows), when it differs
	AttributesFile bool        `json:"-"`
	Untouched      []Untouched `json:"-"`
	// A path that is not valid UTF-8 cannot travel in a JSON string exactly; these
	// carry its bytes.
	PathBase64    string `json:"path_base64,omitempty"`
	OldPathBase64 string `json:"old_path_base64,omitempty"`
}

// Ratio is the seed's change ratio: (added + deleted) / max(lines_before, 1).
func Ratio(added, deleted, before int64) float64 {
	return float64(added+deleted) / float64(max(before, 1))
}

// Analyze applies the rules to one file.
//
//   - an added or copied file is never flagged: nothing is lost;
//   - a deleted file always is;
//   - a binary or submodule change cannot be measured in lines: it is flagged
//     unless added, with line counts 0;
//   - otherwise requires_review = change_ratio > threshold, and is_replacement =
//     change_ratio > replacement ratio and lines_after < lines_before / 2;
//   - a mode-only change has ratio 0;
//   - a removed definition flags a file whatever its ratio;
//   - so does a checkout that is not the blob (converted), and a change to a
//     .gitattributes file, added ones too: what runs is not what is shown;
//   - so do characters a terminal does not show among the added lines, and
//     a diff too large to show (see flagUnseen).
func Analyze(c Change, r Rules) FileReport {
	f := measure(c, r)
	f.flagCheckout(c)
	f.flagUnseen(c, r)
	return f
}

// flagCheckout flags a file whose checkout is not its blob, and a
// .gitattributes file that changed, unless a stronger reason holds.
func (f *FileReport) flagCheckout(c Change) {
	f.Converted, f.Checkout, f.CaseCheckout, f.AttributesFile, f.Untouched = nonNil(c.Converted), c.Checkout, c.CaseCheckout, c.AttributesFile, c.Untouched
	switch f.Reason {
	case ReasonDeleted, ReasonReplaced, ReasonRemovedDefinitions:
		return
	}
	switch {
	case len(c.Converted) > 0:
		f.RequiresReview, f.Reason = true, ReasonConverted
	case c.AttributesFile:
		f.RequiresReview, f.Reason = true, ReasonAttributes
	}
}

// flagUnseen flags what a human reading the review would not see: characters
// a terminal does not show and names that read as others, in the lines the
// change adds (counted in the new side, so a file that kept its own is not
// flagged for them), and what is over the limit, which the review does not
// print: a diff over MaxShownBytes, a checkout as large, and the files a
// .gitattributes converts that the review did not check out. The lines of
// a binary file, or a submodule, are not shown at all (and so not measured).
func (f *FileReport) flagUnseen(c Change, r Rules) {
	f.ShownLimit = r.MaxShownBytes
	f.CheckoutOver = c.Checkout.Cut() || c.CaseCheckout.Cut()
	for _, u := range c.Untouched {
		if u.Checkout == nil || u.Checkout.Cut() {
			f.UnseenFiles++
		}
	}
	if !c.Submodule && !(c.Binary && !c.Textual) {
		f.Invisible, f.ShownBytes = c.Invisible, c.Shown
		f.Confusable, f.Lookalikes, f.RunOn = c.Confusable, c.Lookalikes, c.RunOn
		f.LongLines, f.Longest = c.LongLines, c.Longest
		f.DiffOver = r.MaxShownBytes > 0 && c.Shown > r.MaxShownBytes
	}
	f.NotShown = f.DiffOver || f.CheckoutOver || f.UnseenFiles > 0
	if f.Invisible == 0 && f.Confusable == 0 && f.LongLines == 0 && !f.NotShown {
		return
	}
	f.RequiresReview = true
	switch {
	case f.Reason != ReasonNone:
	case f.NotShown:
		f.Reason = ReasonNotShown
	case f.Invisible > 0:
		f.Reason = ReasonInvisible
	case f.Confusable > 0:
		f.Reason = ReasonConfusable
	default:
		f.Reason = ReasonLongLines
	}
}

// measure applies the rules of lines, definitions and kinds of file.
func measure(c Change, r Rules) FileReport {
	f := FileReport{
		Path: c.Path, OldPath: c.OldPath, Status: c.Status, Binary: c.Binary, Textual: c.Textual,
		Submodule: c.Submodule, ModeChanged: c.ModeChanged,
		PathBase64: rawBytes(c.Path), OldPathBase64: rawBytes(c.OldPath),
		RemovedSymbols: nonNil(c.Symbols.Removed), MovedSymbols: nonNil(c.Symbols.Moved),
		RenamedSymbols: nonNil(c.Symbols.Renamed), SymbolsNote: c.Symbols.Note,
	}
	if c.Binary || c.Submodule {
		f.Reason = flagOpaque(c)
		f.RequiresReview = f.Reason != ReasonNone
		return f
	}
	f.LinesBefore, f.LinesAdded, f.LinesDeleted = c.LinesBefore, c.Added, c.Deleted
	f.LinesAfter = max(c.LinesBefore+c.Added-c.Deleted, 0)
	if c.Status == Added {
		f.LinesBefore, f.LinesDeleted, f.LinesAfter = 0, 0, c.Added
	}
	if c.Status == Deleted {
		f.LinesAfter = 0
	}
	f.ChangeRatio = round(Ratio(f.LinesAdded, f.LinesDeleted, f.LinesBefore))
	switch c.Status {
	case Added, Copied:
		return f
	case Deleted:
		f.RequiresReview, f.Reason = true, ReasonDeleted
		return f
	}
	ratio := Ratio(f.LinesAdded, f.LinesDeleted, f.LinesBefore)
	f.IsReplacement = ratio > r.ReplacementRatio && float64(f.LinesAfter) < float64(f.LinesBefore)*0.5
	switch {
	case f.IsReplacement:
		f.RequiresReview, f.Reason = true, ReasonReplaced
	case len(f.RemovedSymbols) > 0:
		f.RequiresReview, f.Reason = true, ReasonRemovedDefinitions
	case ratio > r.ChangeRatioThreshold:
		f.RequiresReview, f.Reason = true, ReasonChanged
	}
	return f
}

func flagOpaque(c Change) Reason {
	switch {
	case c.Status == Added || c.Status == Copied:
		return ReasonNone
	case c.Status == Deleted:
		return ReasonDeleted
	case c.Submodule:
		return ReasonSubmodule
	}
	return ReasonBinary
}

// round keeps four decimals, so that JSON output is stable and readable.
func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Summary totals a report.
type Summary struct {
	Files   int   `json:"files"`
	Added   int64 `json:"added"`
	Deleted int64 `json:"deleted"`
}

// Report is the analysis of one change: the tree under review against its base.
type Report struct {
	Tree    string       `json:"tree"`
	Base    string       `json:"base"`
	Files   []FileReport `json:"files"`
	Flagged []string     `json:"flagged"`
	Summary Summary      `json:"summary"`
	// MaxShownBytes is the limit the files were measured against.
	MaxShownBytes int64 `json:"-"`
}

// Build analyses every change in order.
func Build(tree, base string, changes []Change, r Rules) *Report {
	rep := &Report{Tree: tree, Base: base, Files: []FileReport{}, Flagged: []string{}, MaxShownBytes: r.MaxShownBytes}
	for _, c := range changes {
		f := Analyze(c, r)
		rep.Files = append(rep.Files, f)
		if f.RequiresReview {
			rep.Flagged = append(rep.Flagged, f.Path)
		}
		rep.Summary.Files++
		rep.Summary.Added += f.LinesAdded
		rep.Summary.Deleted += f.LinesDeleted
	}
	return rep
}

// NotShown returns the reports of the files whose diff is not shown.
func (r *Report) NotShown() []FileReport {
	return r.where(func(f *FileReport) bool { return f.NotShown })
}

// FlaggedFiles returns the reports of the files that need review.
func (r *Report) FlaggedFiles() []FileReport {
	return r.where(func(f *FileReport) bool { return f.RequiresReview })
}

func (r *Report) where(keep func(*FileReport) bool) []FileReport {
	var out []FileReport
	for i := range r.Files {
		if keep(&r.Files[i]) {
			out = append(out, r.Files[i])
		}
	}
	return out
}

// nonNil keeps an empty list a list in JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func rawBytes(p string) string {
	if utf8.ValidString(p) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(p))
}
