package review

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/lookalike"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Printer shows a review on one stream.
type Printer struct {
	W     io.Writer
	P     term.Palette
	Width int
}

// Show prints the whole review: the stat, the banner, and for each flagged file
// its warning, line counts and full diff.
func Show(ctx context.Context, repo *gitx.Repo, t Target, rep *analysis.Report, pr *Printer) error {
	pr.Summary(rep)
	flagged := map[string]analysis.FileReport{}
	for _, f := range rep.FlaggedFiles() {
		flagged[f.Path] = f
	}
	if len(flagged) == 0 {
		return nil
	}
	var current *gitx.Section
	return repo.StreamPatch(ctx, t.Base, t.Tree, gitx.Visitor{Keep: keep(rep.MaxShownBytes), Line: func(s *gitx.Section, l gitx.Line) error {
		f, ok := flagged[s.Name()]
		if !ok {
			return nil
		}
		if s != current {
			if current == nil || current.Name() != s.Name() { // a type change has two sections
				fmt.Fprintln(pr.W)
				pr.Warning(f)
			}
			current = s
		}
		pr.diffLineOf(f, s, l)
		return nil
	}})
}

// diffLineOf prints a line of f's patch, escaped as every line is. Of a
// binary file (the patch is asked for as text) only its header and one line
// that says its content is not shown, unless it is text for the most part (a
// NUL in a script): then a human reads it like any other. Of a file whose
// diff is over the limit, likewise: it is NOT SHOWN, and approved on its own.
func (pr *Printer) diffLineOf(f analysis.FileReport, s *gitx.Section, l gitx.Line) {
	switch {
	case f.DiffOver && l.Kind == gitx.LineHeader:
		pr.diffLine(l, nil)
	case f.DiffOver:
		if s.Hunks == 1 && l.Kind == gitx.LineHunk {
			fmt.Fprintln(pr.W, pr.P.Dim(fmt.Sprintf("(%d bytes of diff not shown: over the limit of %d, [diffgate] max_shown_bytes)", f.ShownBytes, f.ShownLimit)))
		}
	case !f.Binary || f.Textual || l.Kind == gitx.LineHeader:
		pr.diffLine(l, lookalikes(f))
	case s.Hunks == 1 && l.Kind == gitx.LineHunk:
		fmt.Fprintln(pr.W, pr.P.Dim("(binary content not shown)"))
	}
}

// ShowAll prints the review with the diff of every file: the flagged ones
// first, each under its warning, then the files first picks (the tests), then
// the rest, each under a line that names it. A merge is approved on all of it.
func ShowAll(ctx context.Context, repo *gitx.Repo, t Target, rep *analysis.Report, pr *Printer, first func(path string) bool) error {
	pr.Summary(rep)
	reports := map[string]analysis.FileReport{}
	for _, f := range rep.Files {
		reports[f.Path] = f
	}
	flagged := func(p string) bool { return reports[p].RequiresReview }
	passes := []func(string) bool{
		flagged,
		func(p string) bool { return !flagged(p) && first(p) },
		func(p string) bool { return !flagged(p) && !first(p) },
	}
	for _, in := range passes {
		if !slices.ContainsFunc(rep.Files, func(f analysis.FileReport) bool { return in(f.Path) }) {
			continue
		}
		var current *gitx.Section
		err := repo.StreamPatch(ctx, t.Base, t.Tree, gitx.Visitor{Keep: keep(rep.MaxShownBytes), Line: func(s *gitx.Section, l gitx.Line) error {
			if !in(s.Name()) {
				return nil
			}
			if s != current {
				if current == nil || current.Name() != s.Name() {
					fmt.Fprintln(pr.W)
					if f := reports[s.Name()]; f.RequiresReview {
						pr.Warning(f)
					} else {
						pr.fileLine(f)
					}
				}
				current = s
			}
			pr.diffLineOf(reports[s.Name()], s, l)
			return nil
		}})
		if err != nil {
			return err
		}
	}
	return nil
}

// fileLine names a file that needs no special review, above its diff.
func (pr *Printer) fileLine(f analysis.FileReport) {
	fmt.Fprintln(pr.W, pr.P.Bold(fmt.Sprintf("── %s (%s)", displayName(f), f.Status)))
}

// Summary prints the stat and, when files are flagged, the banner.
func (pr *Printer) Summary(rep *analysis.Report) {
	pr.Stat(rep)
	fmt.Fprintln(pr.W)
	if len(rep.Flagged) == 0 {
		fmt.Fprintln(pr.W, pr.P.Green("No file needs special review: nothing was mostly rewritten, replaced or deleted."))
	} else {
		pr.Banner(rep)
	}
	pr.Definitions(rep)
}

// Definitions lists, as information, the definitions that moved or were
// renamed, and the files whose definitions were not compared.
func (pr *Printer) Definitions(rep *analysis.Report) {
	var moved, skipped []string
	for _, f := range rep.Files {
		for _, m := range f.MovedSymbols {
			moved = append(moved, fmt.Sprintf("%s moved from %s to %s", symbol(m.Kind, m.Name), pathOf(f.Path), pathOf(m.To)))
		}
		for _, r := range f.RenamedSymbols {
			moved = append(moved, fmt.Sprintf("%s renamed to %s in %s", symbol(r.Kind, r.Name), term.Line(r.NewName, 0), pathOf(f.Path)))
		}
		if f.SymbolsNote != "" && !f.RequiresReview {
			skipped = append(skipped, pathOf(f.Path)+": "+term.Line(f.SymbolsNote, 0))
		}
	}
	pr.list("Definitions moved or renamed, nothing lost:", moved)
	pr.list("Definitions not compared:", skipped)
}

func (pr *Printer) list(title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(pr.W, title)
	for _, l := range lines {
		fmt.Fprintln(pr.W, "  "+l)
	}
}

// Stat prints one line a file with a bar, like git diff --stat, and a tag on the
// files that need review.
func (pr *Printer) Stat(rep *analysis.Report) {
	names := make([]string, len(rep.Files))
	nameW, maxChange := 0, int64(0)
	for i, f := range rep.Files {
		names[i] = displayName(f)
		nameW = max(nameW, term.Cols(names[i]))
		maxChange = max(maxChange, f.LinesAdded+f.LinesDeleted)
	}
	width := max(pr.Width, 40)
	nameW = min(nameW, width/2)
	countW := len(fmt.Sprint(maxChange))
	barW := max(width-nameW-countW-18, 10)
	for i, f := range rep.Files {
		name := fitLeft(names[i], nameW)
		pad := strings.Repeat(" ", max(nameW-term.Cols(name), 0))
		line := fmt.Sprintf(" %s%s | ", name, pad)
		switch {
		case f.Binary:
			line += fmt.Sprintf("%*s", countW, "Bin")
		default:
			add, del := scaleBars(f.LinesAdded, f.LinesDeleted, maxChange, int64(barW))
			line += fmt.Sprintf("%*d ", countW, f.LinesAdded+f.LinesDeleted) +
				pr.P.Green(strings.Repeat("+", add)) + pr.P.Red(strings.Repeat("-", del))
		}
		if tag := pr.tag(f); tag != "" {
			line += "  " + tag
		}
		fmt.Fprintln(pr.W, line)
	}
	pr.Totals(rep)
}

// Totals prints the stat's last line: files changed, insertions, deletions.
func (pr *Printer) Totals(rep *analysis.Report) {
	s := rep.Summary
	fmt.Fprintf(pr.W, " %d %s changed, %d %s(+), %d %s(-)\n", s.Files, term.Pick(int64(s.Files), "file", "files"),
		s.Added, term.Pick(s.Added, "insertion", "insertions"), s.Deleted, term.Pick(s.Deleted, "deletion", "deletions"))
}

// Banner lists the flagged files.
func (pr *Printer) Banner(rep *analysis.Report) {
	rule := strings.Repeat("=", min(max(pr.Width, 40), 78))
	fmt.Fprintln(pr.W, pr.P.Yellow(rule))
	fmt.Fprintf(pr.W, "%s %d of %d %s %s review: mostly rewritten, replaced, deleted, lost definitions, not measurable in lines, invisible characters, names that read as others, long lines or not shown\n",
		pr.P.Yellow("WARNING:"), len(rep.Flagged), len(rep.Files), term.Pick(int64(len(rep.Files)), "file", "files"),
		term.Pick(int64(len(rep.Flagged)), "needs", "need"))
	for _, f := range rep.FlaggedFiles() {
		fmt.Fprintf(pr.W, "  %s\n", pr.headline(f))
		if f.SymbolsNote != "" && len(f.RemovedSymbols) > 0 {
			// why every definition is gone: the file no longer parses
			fmt.Fprintf(pr.W, "    %s\n", term.Line(f.SymbolsNote, 0))
		}
	}
	fmt.Fprintln(pr.W, pr.P.Yellow(rule))
}

// Warning prints a flagged file's headline, the definitions it lost and what
// else became of its definitions, and its line counts.
func (pr *Printer) Warning(f analysis.FileReport) {
	fmt.Fprintln(pr.W, pr.headline(f))
	if f.Reason != analysis.ReasonRemovedDefinitions && len(f.RemovedSymbols) > 0 {
		fmt.Fprintln(pr.W, pr.removed(f))
	}
	for _, m := range f.MovedSymbols {
		fmt.Fprintf(pr.W, "  %s moved to %s\n", symbol(m.Kind, m.Name), pathOf(m.To))
	}
	for _, r := range f.RenamedSymbols {
		fmt.Fprintf(pr.W, "  %s renamed to %s\n", symbol(r.Kind, r.Name), term.Line(r.NewName, 0))
	}
	if f.SymbolsNote != "" {
		fmt.Fprintln(pr.W, "  "+term.Line(f.SymbolsNote, 0))
	}
	for _, l := range pr.unseen(f) {
		fmt.Fprintln(pr.W, "  "+l)
	}
	pr.checkoutNotes(f)
	if !f.Binary && !f.Submodule {
		fmt.Fprintf(pr.W, "  lines before: %d, after: %d (+%d -%d, change ratio %.2f)\n",
			f.LinesBefore, f.LinesAfter, f.LinesAdded, f.LinesDeleted, f.ChangeRatio)
	}
	pr.checkout(f)
}

// headline is the seed's message for a flagged file.
func (pr *Printer) headline(f analysis.FileReport) string {
	p := pathOf(f.Path)
	switch f.Reason {
	case analysis.ReasonReplaced:
		return fmt.Sprintf("%s %s (%d → %d lines)", pr.P.Red("REPLACED:"), p, f.LinesBefore, f.LinesAfter)
	case analysis.ReasonDeleted:
		return fmt.Sprintf("%s %s", pr.P.Red("DELETED:"), p)
	case analysis.ReasonRemovedDefinitions:
		return pr.removed(f)
	case analysis.ReasonBinary:
		return fmt.Sprintf("%s binary file %s was changed", pr.P.Yellow("WARNING:"), p)
	case analysis.ReasonSubmodule:
		return fmt.Sprintf("%s submodule %s now points to another commit", pr.P.Yellow("WARNING:"), p)
	case analysis.ReasonNotShown:
		return pr.notShown(f)
	case analysis.ReasonInvisible:
		return pr.invisible(f)
	case analysis.ReasonConfusable:
		return pr.confusable(f)
	case analysis.ReasonLongLines:
		return pr.longLines(f)
	case analysis.ReasonConverted:
		return pr.converted(f)
	case analysis.ReasonAttributes:
		return pr.attributes(f)
	}
	return fmt.Sprintf("%s %d%% of %s was changed", pr.P.Yellow("WARNING:"), int(math.Round(f.ChangeRatio*100)), p)
}

// unseen are the lines that say what of f a terminal would not show, but
// the one its headline says already.
func (pr *Printer) unseen(f analysis.FileReport) []string {
	var out []string
	if f.NotShown && f.Reason != analysis.ReasonNotShown {
		out = append(out, pr.notShown(f))
	}
	if f.Invisible > 0 && f.Reason != analysis.ReasonInvisible {
		out = append(out, pr.invisible(f))
	}
	if f.Confusable > 0 && f.Reason != analysis.ReasonConfusable {
		out = append(out, pr.confusable(f))
	}
	if f.LongLines > 0 && f.Reason != analysis.ReasonLongLines {
		out = append(out, pr.longLines(f))
	}
	return out
}

// longLines is the line that says a file adds lines too long to read: the
// longest, and how many lines of this screen it takes folded.
func (pr *Printer) longLines(f analysis.FileReport) string {
	cols := int64(max(pr.Width, 40))
	screen := 1 + (max(f.Longest-cols, 0)+cols-2)/(cols-1) // pieces after the first start behind a mark
	return fmt.Sprintf("%s %s: %s over %d characters, the longest %d (%d lines of a screen of %d columns): shown whole, folded; search what hides in %s",
		pr.P.Red("LONG LINES:"), pathOf(f.Path), term.Count(f.LongLines, "line", "lines"), LongLine, f.Longest, screen, cols,
		term.Pick(f.LongLines, "it", "them"))
}

// maxLookalikesNamed is how many of a file's names that read as others its
// headline explains; the diff shows every one escaped.
const maxLookalikesNamed = 3

// confusable is the line that names the names that read as others, each
// escaped (\u{043e}k) and explained, and the comments that run on into the
// next line.
func (pr *Printer) confusable(f analysis.FileReport) string {
	var parts []string
	if n := f.Confusable - int64(len(f.RunOn)); n > 0 {
		named := make([]string, 0, maxLookalikesNamed)
		for _, n := range f.Lookalikes[:min(len(f.Lookalikes), maxLookalikesNamed)] {
			named = append(named, fmt.Sprintf("%s (%s)", term.EscapeName(n), lookalike.Explain(n)))
		}
		if more := len(f.Lookalikes) - len(named); more > 0 {
			named = append(named, fmt.Sprintf("and %d more", more))
		}
		parts = append(parts, fmt.Sprintf("%s %s (shown as \\u{…}): %s", term.Count(n, "name", "names"),
			term.Pick(n, "reads as another", "read as others"), strings.Join(named, ", ")))
	}
	for i, l := range f.RunOn {
		if i == maxLookalikesNamed {
			parts = append(parts, fmt.Sprintf("and %d more such lines", len(f.RunOn)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("line %d: a // comment ends in \\, and takes line %d into it", l, l+1))
	}
	return fmt.Sprintf("%s %s: %s", pr.P.Red("CONFUSABLE:"), pathOf(f.Path), strings.Join(parts, "; "))
}

// lookalikes picks, for LineNames, the names of f that read as others; nil
// when it has none.
func lookalikes(f analysis.FileReport) func(string) bool {
	if len(f.Lookalikes) == 0 {
		return nil
	}
	return func(name string) bool { return slices.Contains(f.Lookalikes, name) }
}

// invisible is the line that counts the characters a terminal does not show.
func (pr *Printer) invisible(f analysis.FileReport) string {
	return fmt.Sprintf(`%s %s: %s a terminal does not show (shown as \u{…})`, pr.P.Red("INVISIBLE:"), pathOf(f.Path),
		term.Count(f.Invisible, "character", "characters"))
}

// notShown is the line that says what of a file is too large to show: its
// diff, its checkout, the checkouts of the files a .gitattributes converts.
func (pr *Printer) notShown(f analysis.FileReport) string {
	limit := shownLimit(f)
	var what []string
	if f.DiffOver {
		what = append(what, fmt.Sprintf("%d bytes of diff, over the limit of %d ([diffgate] max_shown_bytes)", f.ShownBytes, limit))
	}
	for _, c := range []*analysis.Checkout{f.Checkout, f.CaseCheckout} {
		if c.Cut() {
			what = append(what, fmt.Sprintf("its checkout%s, %d bytes, over the limit of %d ([diffgate] max_shown_bytes; its start is shown)", where(c), c.Size, limit))
		}
	}
	if f.UnseenFiles > 0 {
		what = append(what, fmt.Sprintf("the checkouts of %s it converts (a review checks out %d at most, and shows none over %d bytes)",
			term.Count(f.UnseenFiles, "file", "files"), maxUntouchedShown, limit))
	}
	return fmt.Sprintf("%s %s: %s: it needs an APPROVE of its own", pr.P.Red("NOT SHOWN:"), pathOf(f.Path), strings.Join(what, "; "))
}

// shownLimit is the limit f was measured against: max_shown_bytes, or the
// ceiling of what a review holds when it is 0.
func shownLimit(f analysis.FileReport) int64 { return int64(keep(f.ShownLimit)) }

// removed is the line that names what a file lost.
func (pr *Printer) removed(f analysis.FileReport) string {
	names := make([]string, len(f.RemovedSymbols))
	for i, r := range f.RemovedSymbols {
		names[i] = symbol(r.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s: %s", pr.P.Red("REMOVED:"), pathOf(f.Path), strings.Join(names, ", "))
}

// symbol shows a definition as its kind and name: "def load_state".
func symbol(kind, name string) string { return kind + " " + term.Line(name, 0) }

func (pr *Printer) tag(f analysis.FileReport) string {
	var tags []string
	switch f.Reason {
	case analysis.ReasonRemovedDefinitions:
		tags = append(tags, pr.P.Red("REMOVED"))
	case analysis.ReasonReplaced:
		tags = append(tags, pr.P.Red("REPLACED"))
	case analysis.ReasonDeleted:
		tags = append(tags, pr.P.Red("DELETED"))
	case analysis.ReasonBinary:
		tags = append(tags, pr.P.Yellow("BINARY"))
	case analysis.ReasonSubmodule:
		tags = append(tags, pr.P.Yellow("SUBMODULE"))
	case analysis.ReasonConverted:
		tags = append(tags, pr.P.Red("CONVERTED"))
	case analysis.ReasonAttributes:
		tags = append(tags, pr.P.Yellow("ATTRIBUTES"))
	case analysis.ReasonChanged:
		tags = append(tags, pr.P.Yellow(fmt.Sprintf("CHANGED %d%%", int(math.Round(f.ChangeRatio*100)))))
	}
	if f.NotShown {
		tags = append(tags, pr.P.Red("NOT SHOWN"))
	}
	if f.Invisible > 0 {
		tags = append(tags, pr.P.Red("INVISIBLE"))
	}
	if f.Confusable > 0 {
		tags = append(tags, pr.P.Red("CONFUSABLE"))
	}
	if f.LongLines > 0 {
		tags = append(tags, pr.P.Red("LONG LINES"))
	}
	return strings.Join(tags, " ")
}

// diffLine prints a line of a patch, escaped, whole: a line wider than the
// screen is folded, each piece after the first behind a … mark, so that
// neither a terminal that does not wrap nor a pager that cuts long lines
// (less -S) hides its end. A line is cut only when the scanner did not keep
// it whole, which a file within the shown limit never has.
func (pr *Printer) diffLine(l gitx.Line, names func(string) bool) {
	text := term.Line(string(l.Text), 0)
	if names != nil {
		text = term.LineNames(string(l.Text), names)
	}
	if l.Cut > 0 {
		text += fmt.Sprintf(" … (%d more bytes)", l.Cut)
	}
	paint := func(s string) string { return s }
	switch l.Kind {
	case gitx.LineHeader:
		paint = pr.P.Bold
	case gitx.LineHunk:
		paint = pr.P.Cyan
	case gitx.LineDeleted:
		paint = pr.P.Red
	case gitx.LineAdded:
		paint = pr.P.Green
	case gitx.LineNoNewline:
		paint = pr.P.Dim
	case gitx.LineBinary:
		if strings.HasPrefix(text, "GIT binary patch") || strings.HasPrefix(text, "Binary files") {
			fmt.Fprintln(pr.W, pr.P.Dim("(binary content not shown)"))
		}
		return
	}
	for i, piece := range term.Fold(text, pr.Width, 0) {
		if i > 0 {
			piece = term.FoldMark + piece
		}
		fmt.Fprintln(pr.W, paint(piece))
	}
}

// pathOf shows a path as term.Path does, and a name in it that reads as
// another (src/\u{0430}uth.py) escaped.
func pathOf(p string) string { return term.PathNames(p, lookalike.IsAnywhere) }

func displayName(f analysis.FileReport) string {
	if (f.Status == analysis.Renamed || f.Status == analysis.Copied) && f.OldPath != f.Path {
		return pathOf(f.OldPath) + " => " + pathOf(f.Path)
	}
	return pathOf(f.Path)
}

// fitLeft keeps the end of a long name, where the file's own name is, in
// w columns (a wide character takes two).
func fitLeft(s string, w int) string {
	if term.Cols(s) <= w {
		return s
	}
	r := []rune(s)
	i, cols := len(r), 3
	for i > 0 && cols+term.Cols(string(r[i-1])) <= w {
		i--
		cols += term.Cols(string(r[i]))
	}
	return "..." + string(r[i:])
}

// scaleBars fits the +/- bar into width, keeping at least one mark for any change.
func scaleBars(add, del, maxChange, width int64) (int, int) {
	if maxChange <= width {
		return int(add), int(del)
	}
	scale := func(n int64) int {
		if n == 0 {
			return 0
		}
		return int(max(n*width/maxChange, 1))
	}
	return scale(add), scale(del)
}
