package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/pager"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Screen is the terminal a human reviews on, and the pager the review goes
// through there ("" prints straight to the terminal).
type Screen struct {
	TTY   *term.TTY
	Pager string
	Prog  string // for warnings: git-diffgate, git-tdd
}

// NewScreen decides the pager for a review on tty: git's own choice (git var
// GIT_PAGER), unless noPager or the terminal reports no height. A pager that
// the repository's own configuration chose (core.pager in .git/config, which
// anything with a shell in the repository can write) is not used: it could
// show a doctored diff and clear the screen of any warning. $PAGER or git's
// default (less) shows the review instead, and a line says why. Whatever the pager,
// it only shows the review: the question is asked on the terminal after it
// exits, and the typeahead discarded then.
func NewScreen(ctx context.Context, repo *gitx.Repo, tty *term.TTY, noPager bool, getenv func(string) string, prog string) Screen {
	s := Screen{TTY: tty, Prog: prog}
	if noPager || tty.Rows() <= 0 {
		return s
	}
	git, err := repo.Var(ctx, "GIT_PAGER")
	if err != nil {
		return s
	}
	s.Pager = pager.Which(git, noPager, tty.Rows())
	if s.Pager != "" && getenv("GIT_PAGER") == "" {
		if scope, ok, _ := repo.ConfigScope(ctx, "core.pager"); ok && (scope == "local" || scope == "worktree") {
			fallback := getenv("PAGER")
			if fallback == "" {
				fallback = "less"
			}
			term.Warn(tty.Writer(), prog, "not paging through %q: it comes from this repository's own configuration (core.pager in .git/config), which anything that runs here can change; the review goes through %q (set GIT_PAGER to choose)", term.Line(s.Pager, 80), term.Line(fallback, 80))
			s.Pager = pager.Which(fallback, noPager, tty.Rows())
		}
	}
	return s
}

// Present shows a review: show prints it (the stat, the banner, the diffs)
// into the pager when there is one, else on the terminal; then the summary
// is printed again on the terminal itself, right above the question, when a
// long diff or a pager left it out of sight. A pager that fails
// is said, and the review printed on the terminal instead: nothing goes
// unshown because of it.
func (s Screen) Present(rep *analysis.Report, show func(pr *Printer) error) error {
	tty := s.TTY.Writer()
	direct := &Printer{W: tty, P: s.TTY.Palette, Width: s.TTY.Width()}
	summary := &lineCounter{w: io.Discard}
	(&Printer{W: summary, Width: s.TTY.Width()}).Summary(rep)
	// the summary is printed again only when the review pushed it out of
	// sight: more lines than the terminal has (or, of unknown height, more
	// than the summary itself), so that a short review shows it once
	rows := s.TTY.Rows()
	outOfSight := func(n int) bool {
		if rows > 0 {
			return n+2 > rows // and the question with its blank line
		}
		return n > summary.n
	}
	if s.Pager != "" {
		p, err := pager.Start(s.Pager, s.TTY.File(), os.Environ())
		if err == nil {
			paged := &lineCounter{w: p}
			err = show(&Printer{W: paged, P: s.TTY.Palette, Width: s.TTY.Width()})
			werr := p.Wait()
			if err != nil && !errors.Is(err, pager.ErrQuit) {
				return err
			}
			if werr == nil {
				if outOfSight(paged.n) || errors.Is(err, pager.ErrQuit) {
					direct.Recap(rep)
				}
				return nil
			}
			err = werr
		}
		term.Warn(tty, s.Prog, "the pager %q failed (%v); the review follows here", term.Line(s.Pager, 80), err)
	}
	shown := &lineCounter{w: tty}
	if err := show(&Printer{W: shown, P: s.TTY.Palette, Width: s.TTY.Width()}); err != nil {
		return err
	}
	if outOfSight(shown.n) {
		direct.Recap(rep) // the diffs pushed the banner up
	}
	return nil
}

// Recap repeats, under a long review, the stat's total and the banner (or
// that no file needs special review).
func (pr *Printer) Recap(rep *analysis.Report) {
	fmt.Fprintln(pr.W)
	pr.Totals(rep)
	if len(rep.Flagged) == 0 {
		fmt.Fprintln(pr.W, pr.P.Green("No file needs special review: nothing was mostly rewritten, replaced or deleted."))
		return
	}
	pr.Banner(rep)
}

// lineCounter counts the lines written through it.
type lineCounter struct {
	w io.Writer
	n int
}

func (c *lineCounter) Write(b []byte) (int, error) {
	for _, x := range b {
		if x == '\n' {
			c.n++
		}
	}
	return c.w.Write(b)
}
