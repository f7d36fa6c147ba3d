package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/term"
)

// ConfirmUnseen asks, after the APPROVE of a review, for each file of which
// something was over the limit and not shown (its diff, its checkout, the
// checkouts of the files a .gitattributes converts), an APPROVE of its own
// after a second warning: the review's APPROVE covers what the human read.
// It reports whether every one was approved; the first REJECT, or no valid
// answer, ends it with false.
func ConfirmUnseen(ctx context.Context, tty *term.TTY, rep *analysis.Report) (bool, error) {
	pr := &Printer{W: tty.Writer(), P: tty.Palette, Width: tty.Width()}
	for _, f := range rep.NotShown() {
		fmt.Fprintln(pr.W)
		fmt.Fprintln(pr.W, pr.notShown(f))
		if f.UnseenFiles > 0 {
			pr.unseenFiles(f)
		}
		fmt.Fprintln(pr.W, "  The review did not print it all: read it some other way before you accept it unseen.")
		answer, err := tty.Choose(ctx, UnseenPrompt(f), []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}})
		if errors.Is(err, term.ErrNoAnswer) {
			return false, nil
		}
		if err != nil || answer != "APPROVE" {
			return false, err
		}
	}
	return true, nil
}

// maxUnseenNamed is how many of the files a .gitattributes converts unseen
// the second warning names again.
const maxUnseenNamed = 20

// unseenFiles names again the files a .gitattributes converts whose
// checkout the review did not print whole.
func (pr *Printer) unseenFiles(f analysis.FileReport) {
	named := 0
	for _, u := range f.Untouched {
		if u.Checkout != nil && !u.Checkout.Cut() {
			continue
		}
		if named++; named > maxUnseenNamed {
			fmt.Fprintf(pr.W, "  and %d more\n", f.UnseenFiles-maxUnseenNamed)
			return
		}
		fmt.Fprintln(pr.W, "  "+pathOf(u.Path))
	}
}

// UnseenPrompt is the question for a file of which something was not shown.
func UnseenPrompt(f analysis.FileReport) string {
	if f.UnseenFiles > 0 && !f.DiffOver && !f.CheckoutOver {
		return fmt.Sprintf("Type APPROVE to accept the checkouts of %s %s converts unseen, or REJECT to refuse them:",
			term.Count(f.UnseenFiles, "file", "files"), pathOf(f.Path))
	}
	return fmt.Sprintf("Type APPROVE to accept %s unseen, or REJECT to refuse it:", pathOf(f.Path))
}
