package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/term"
)

// ConfirmUnseen asks, after the APPROVE of a review, for each file whose diff
// was over the limit and not shown, an APPROVE of its own after a second
// warning: the review's APPROVE covers what the human read. It reports
// whether every one was approved; the first REJECT, or no valid answer, ends
// it with false.
func ConfirmUnseen(ctx context.Context, tty *term.TTY, rep *analysis.Report) (bool, error) {
	pr := &Printer{W: tty.Writer(), P: tty.Palette, Width: tty.Width()}
	for _, f := range rep.NotShown() {
		fmt.Fprintln(pr.W)
		fmt.Fprintln(pr.W, pr.notShown(f))
		fmt.Fprintln(pr.W, "  The review did not print it: read it some other way before you accept it unseen.")
		answer, err := tty.Choose(ctx, UnseenPrompt(f.Path), []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}})
		if errors.Is(err, term.ErrNoAnswer) {
			return false, nil
		}
		if err != nil || answer != "APPROVE" {
			return false, err
		}
	}
	return true, nil
}

// UnseenPrompt is the question for a file that was not shown.
func UnseenPrompt(path string) string {
	return fmt.Sprintf("Type APPROVE to accept %s unseen, or REJECT to refuse it:", term.Path(path))
}
