package review

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/term"
)

// converted is the headline of a file whose checkout is not its blob.
func (pr *Printer) converted(f analysis.FileReport) string {
	return pr.convertedLine(f.Path, f.Converted, f.Checkout, "")
}

// convertedLine says what converts path and what its checkout is; more is
// said after the path's own words.
func (pr *Printer) convertedLine(path string, converted []string, c *analysis.Checkout, more string) string {
	names := make([]string, len(converted))
	for i, n := range converted {
		names[i] = term.Line(n, 0)
	}
	what := "the checkout differs from the blob"
	switch {
	case c == nil:
	case c.Err != "":
		what = "git cannot check it out here: " + term.Line(c.Err, 0)
	case c.Same:
		what = "the checkout runs the filter's command (which wrote the blob this time)"
	}
	return fmt.Sprintf("%s %s (%s): %s%s", pr.P.Red("CONVERTED:"), pathOf(path), strings.Join(names, ", "), what, more)
}

// attributes is the headline of a .gitattributes file the change touches.
func (pr *Printer) attributes(f analysis.FileReport) string {
	s := fmt.Sprintf("%s %s %s: attributes change how files check out (and are diffed and merged)",
		pr.P.Yellow("ATTRIBUTES:"), pathOf(f.Path), f.Status)
	if n := len(f.Untouched); n > 0 {
		s += fmt.Sprintf("; %d %s the change does not touch now %s out otherwise than %s",
			n, term.Pick(int64(n), "file", "files"), term.Pick(int64(n), "checks", "check"), term.Pick(int64(n), "its blob", "their blobs"))
	}
	return s
}

// checkoutNotes prints, under a headline that says something else (a
// replaced file that is converted too, a deleted .gitattributes), the notes
// it did not say.
func (pr *Printer) checkoutNotes(f analysis.FileReport) {
	if len(f.Converted) > 0 && f.Reason != analysis.ReasonConverted {
		fmt.Fprintln(pr.W, "  "+pr.converted(f))
	}
	if f.AttributesFile && f.Reason != analysis.ReasonAttributes {
		fmt.Fprintln(pr.W, "  "+pr.attributes(f))
	}
}

// checkout prints the text a checkout writes for a converted file, and for
// the files a .gitattributes converts that the change does not touch.
func (pr *Printer) checkout(f analysis.FileReport) {
	pr.checkoutText(f.Path, f.Checkout, lookalikes(f))
	pr.checkoutText(f.Path, f.CaseCheckout, lookalikes(f))
	for _, u := range f.Untouched {
		more := ", though the change does not touch it"
		if u.Checkout == nil {
			more = ": NOT SHOWN, not checked out here (more than " + fmt.Sprint(maxUntouchedShown) + "); check it out and read it"
		}
		fmt.Fprintln(pr.W, "  "+pr.convertedLine(u.Path, u.Converted, u.Checkout, more))
		pr.checkoutText(u.Path, u.Checkout, nil)
	}
}

// checkoutText prints what a checkout writes for path, what git tdd and CI
// run, each line marked | or, where it differs from the blob's, !.
func (pr *Printer) checkoutText(path string, c *analysis.Checkout, names func(string) bool) {
	if c == nil || c.Err != "" {
		return
	}
	name := pathOf(path)
	if c.Binary() {
		fmt.Fprintf(pr.W, "  %s as checked out%s: binary, %d bytes (not shown)\n", name, where(c), c.Size)
		return
	}
	whole := c.Blob != nil && int64(len(c.Text)) == c.Size
	if whole && !c.Same && bytes.Equal(c.Text, withCRLF(c.Blob)) {
		// every line would be marked for its CR: say it once
		fmt.Fprintf(pr.W, "  %s as checked out%s: the blob with CRLF line endings, every other byte the same\n", name, where(c))
		return
	}
	lines := splitLines(c.Text)
	differs := differing(lines, splitLines(c.Blob), whole)
	count := 0
	for _, d := range differs {
		if d {
			count++
		}
	}
	runs := " (what git tdd and CI run)"
	if c.CaseInsensitive {
		runs = where(c) + " (what git tdd and CI run there)"
	}
	fmt.Fprintf(pr.W, "  %s as checked out%s, %d %s; %d %s from the blob (!):\n",
		name, runs, len(lines), term.Pick(int64(len(lines)), "line", "lines"), count, term.Pick(int64(count), "differs", "differ"))
	for i, l := range lines {
		mark, paint := " | ", func(s string) string { return s }
		if differs[i] {
			mark, paint = " ! ", pr.P.Yellow
		}
		// folded as a diff line is, so no end of a line is lost to the screen
		text := term.Line(string(l), 0)
		if names != nil {
			text = term.LineNames(string(l), names)
		}
		for j, piece := range term.Fold(text, pr.Width, len(mark)) {
			if j > 0 {
				piece = term.FoldMark + piece
			}
			fmt.Fprintln(pr.W, paint(mark+piece))
		}
	}
	if int64(len(c.Text)) < c.Size {
		fmt.Fprintf(pr.W, "  %s %d more bytes of the checkout%s are not shown: check the file out and read it\n", pr.P.Red("NOT SHOWN:"), c.Size-int64(len(c.Text)), where(c))
	}
}

// where says where a checkout is written so, when not everywhere.
func where(c *analysis.Checkout) string {
	if c != nil && c.CaseInsensitive {
		return onCaseInsensitive
	}
	return ""
}

// withCRLF is text with every LF that no CR precedes made CRLF, as a
// checkout with eol=crlf writes it.
func withCRLF(text []byte) []byte {
	out := make([]byte, 0, len(text)+bytes.Count(text, []byte{'\n'}))
	for i, b := range text {
		if b == '\n' && (i == 0 || text[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, b)
	}
	return out
}

// splitLines cuts text into its lines, without their line feeds (a CR
// stays, to be shown).
func splitLines(text []byte) [][]byte {
	if len(text) == 0 {
		return nil
	}
	lines := bytes.Split(text, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// differing marks the checkout's lines that are not the blob's: line by line
// when they have as many, else the lines the blob does not have at all.
// Without the blob (too large to hold), every line is marked.
func differing(lines, blob [][]byte, known bool) []bool {
	out := make([]bool, len(lines))
	switch {
	case !known:
		for i := range out {
			out[i] = true
		}
	case len(lines) == len(blob):
		for i := range lines {
			out[i] = !bytes.Equal(lines[i], blob[i])
		}
	default:
		have := map[string]int{}
		for _, l := range blob {
			have[string(l)]++
		}
		for i, l := range lines {
			if have[string(l)] > 0 {
				have[string(l)]--
			} else {
				out[i] = true
			}
		}
	}
	return out
}
