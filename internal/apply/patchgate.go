package apply

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/edit"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/srccheck"
	"github.com/git-tdd/git-tdd/internal/term"
	"golang.org/x/sync/errgroup"
)

// gated is a file of a patch that a human must approve.
type gated struct {
	f    *patchFile
	diff string
	why  string
}

// gate finds the files a patch may not change without a human, as write's
// rule does: an existing file from which it deletes more than [write]
// approval_lines lines, or whose result the diff gate would call a replacement;
// a file it deletes (which the diff gate always flags); a file it adds over an
// existing one of more than approval_lines lines (write's own rule). The diff
// is made only where the blocks could cross a line.
func (e *Env) gate(files []*patchFile) ([]gated, error) {
	rules := analysis.Rules{ChangeRatioThreshold: e.Cfg.Diffgate.ChangeRatioThreshold, ReplacementRatio: e.Cfg.Diffgate.ReplacementRatio}
	var out []gated
	for _, f := range files {
		if !f.changed || !f.exists {
			continue
		}
		before, after := gitx.CountLines(f.old), gitx.CountLines(f.result)
		whole := f.removed || slices.ContainsFunc(f.blocks, func(b edit.Block) bool { return b.Action == edit.AddFile })
		if whole {
			if !f.removed && before <= int64(e.Cfg.Write.ApprovalLines) {
				continue
			}
			d, err := e.Repo.DiffTexts(e.Ctx, f.rel, f.old, f.result)
			if err != nil {
				return nil, err
			}
			why := fmt.Sprintf("the patch replaces all of %s (%d → %d lines)", term.Path(f.rel), before, after)
			if f.removed {
				why = fmt.Sprintf("the patch deletes %s (%s)", term.Path(f.rel), term.Count(before, "line", "lines"))
			}
			out = append(out, gated{f, d, why})
			continue
		}
		found := 0
		for _, b := range f.blocks {
			found += len(b.Find)
		}
		if found <= e.Cfg.Write.ApprovalLines && float64(after) >= float64(before)*0.5 {
			continue // it cannot delete more than its blocks found, nor halve the file
		}
		d, err := e.Repo.DiffTexts(e.Ctx, f.rel, f.old, f.result)
		if err != nil {
			return nil, err
		}
		added, deleted := gitx.CountDiff(d)
		r := analysis.Analyze(analysis.Change{Path: f.rel, Status: analysis.Modified, LinesBefore: before, Added: added, Deleted: deleted}, rules)
		switch {
		case r.IsReplacement:
			out = append(out, gated{f, d, fmt.Sprintf("REPLACED: %s (%d → %d lines)", term.Path(f.rel), before, after)})
		case deleted > int64(e.Cfg.Write.ApprovalLines):
			out = append(out, gated{f, d, fmt.Sprintf("the patch deletes %d lines of %s (%d → %d lines)", deleted, term.Path(f.rel), before, after)})
		}
	}
	return out, nil
}

// approve asks a human on the terminal to approve the gated files; without one
// (or with --auto) only --force, where allowed, lets the patch through, and
// the input is saved for the human whose command the refusal names.
func (e *Env) approve(o PatchOptions, gates []gated) (string, error) {
	auto := o.Auto || e.Getenv("GIT_TDD_AUTO") == "1"
	tty, done := e.openTTY()
	defer done()
	if auto || tty == nil {
		if o.Force && e.Cfg.Write.AllowForce {
			return "force", nil
		}
		err := exitcode.New(exitcode.HumanRequired, "the patch needs a human's approval; nothing was written").WithDetail(whys(gates)...)
		if o.Force {
			err.WithDetail("[write] allow_force = false: --force does not apply it either")
		}
		hint := "a human can run the same patch in a terminal"
		if saved, serr := e.savePending(o.Input); serr == nil {
			hint = fmt.Sprintf("the patch is saved; a human can run, in a terminal:\n  git -C %s tdd patch --from %s", term.ShellQuote(e.Repo.Top), term.ShellQuote(saved))
			if o.Format != "" && o.Format != "auto" {
				hint += " --format " + o.Format
			}
			if o.Path != "" {
				hint += " -- " + term.ShellQuote(o.Path)
			}
		}
		return "", err.WithHint("%s", hint)
	}
	w, p := tty.Writer(), tty.Palette
	for _, g := range gates {
		fmt.Fprintf(w, "%s %s\n", p.Yellow("WARNING:"), g.why)
		showDiffText(w, p, g.diff)
	}
	ans, err := tty.Choose(e.Ctx, "Type APPROVE to apply the patch, or REJECT to cancel:", []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}})
	if err != nil && !errors.Is(err, term.ErrNoAnswer) {
		return "", err
	}
	if ans != "APPROVE" {
		return "", exitcode.New(exitcode.Refused, "rejected: nothing was written")
	}
	return "tty", nil
}

func whys(gates []gated) []string {
	out := make([]string, len(gates))
	for i, g := range gates {
		out[i] = "  " + g.why
	}
	return out
}

// unparsable lists the Python and Go files the patch would break: they parsed
// before and do not after. A file that did not parse before may stay broken
// (fixing it can take more than one patch). The files are checked side by side.
func (e *Env) unparsable(files []*patchFile) []string {
	out := make([]string, len(files))
	var noPython sync.Once
	var g errgroup.Group
	for i, f := range files {
		if !f.changed || f.removed || !srccheck.Checked(f.rel) {
			continue
		}
		g.Go(func() error {
			err := srccheck.Check(e.Ctx, f.rel, f.result)
			if errors.Is(err, srccheck.ErrNoPython) {
				noPython.Do(func() { term.Warn(e.Err, "git-tdd", "%v", err) })
				return nil
			}
			if err != nil && (!f.exists || srccheck.Check(e.Ctx, f.rel, f.old) == nil) {
				out[i] = fmt.Sprintf("  %s: %s", term.Path(f.rel), term.Line(firstLine(err.Error()), 300))
			}
			return nil
		})
	}
	g.Wait()
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// showDiffText prints a unified diff, deletions red, additions green, cut at 10 KB.
func showDiffText(w io.Writer, p term.Palette, d string) {
	shown := 0
	for _, line := range strings.SplitAfter(d, "\n") {
		if shown+len(line) > maxDiffBytes {
			fmt.Fprintf(w, "%s\n", p.Dim(fmt.Sprintf("… the diff is cut at 10 KB (%d more bytes)", len(d)-shown)))
			break
		}
		shown += len(line)
		text := term.Line(strings.TrimSuffix(line, "\n"), 0)
		switch {
		case strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++"):
			fmt.Fprintln(w, p.Bold(text))
		case strings.HasPrefix(line, "-"):
			fmt.Fprintln(w, p.Red(text))
		case strings.HasPrefix(line, "+"):
			fmt.Fprintln(w, p.Green(text))
		case strings.HasPrefix(line, "@@"):
			fmt.Fprintln(w, p.Cyan(text))
		case line != "":
			fmt.Fprintln(w, text)
		}
	}
}
