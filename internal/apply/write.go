package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/git-tdd/git-tdd/internal/atomicfile"
	"github.com/git-tdd/git-tdd/internal/edit"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// WriteOptions are git tdd write's arguments.
type WriteOptions struct {
	Path     string
	Content  []byte
	Strategy string // "" asks on the terminal (replace when no approval is needed)
	Line     int    // where insert puts the content
	Auto     bool   // never ask: a file that needs approval is refused (exit 3)
	Force    bool   // without a human, replace anyway (unless [write] allow_force = false)
}

// maxDiffBytes cuts the diff on the approval screen.
const maxDiffBytes = 10 << 10

// StrategyPrompt is the seed's question.
const StrategyPrompt = "Choose [a]ppend, [i]nsert, [e]xtend, [r]eplace or [c]ancel:"

var strategies = []term.Choice{
	{Word: edit.Append, Aliases: []string{"a"}}, {Word: edit.Insert, Aliases: []string{"i"}},
	{Word: edit.Extend, Aliases: []string{"e"}}, {Word: edit.Replace, Aliases: []string{"r"}},
	{Word: "cancel", Aliases: []string{"c"}},
}

// Write puts content into a file of the worktree. A new file, or an existing one
// of at most [write] approval_lines lines, is written at once; a longer one needs
// a human to choose a strategy on the terminal, or --force.
func (e *Env) Write(o WriteOptions) error {
	tree, rel, err := e.tree(o.Path)
	if err != nil {
		return err
	}
	defer tree.Close()
	if o.Content, err = e.unwrap(tree, rel, o.Content); err != nil {
		return err
	}
	old, _, exists, err := tree.ReadFile(rel)
	if err != nil {
		e.audit(state.AuditEntry{Path: rel, Outcome: "refused", Detail: err.Error()})
		return exitcode.Wrap(exitcode.Usage, err)
	}
	oldLines, newLines := gitx.CountLines(old), gitx.CountLines(o.Content)
	entry := state.AuditEntry{Path: rel, After: content(o.Content, newLines)}
	if exists {
		entry.Before = content(old, oldLines)
	}
	if !exists || oldLines <= int64(e.Cfg.Write.ApprovalLines) {
		strategy := o.Strategy
		if strategy == "" || !exists {
			strategy = edit.Replace
		}
		return e.commit(tree, rel, old, o, strategy, "", entry)
	}
	auto := o.Auto || e.Getenv("GIT_TDD_AUTO") == "1"
	tty, done := e.openTTY()
	defer done()
	if auto || tty == nil {
		return e.unattended(tree, rel, old, o, oldLines, entry)
	}
	return e.ask(tty, tree, rel, old, o, oldLines, newLines, entry)
}

// unwrap takes the content out of git tdd prompt's whole-file answer ("### FILE:"
// and a fence), which must be for this file; other input is the content as it is.
func (e *Env) unwrap(tree files, rel string, in []byte) ([]byte, error) {
	name, content, ok := edit.WholeFile(in)
	if !ok {
		return in, nil
	}
	if named, err := tree.Resolve(e.Repo.Top, name); err != nil || named != rel {
		e.audit(state.AuditEntry{Path: rel, Outcome: "refused", Detail: "the answer is for " + name})
		return nil, exitcode.New(exitcode.Usage, "the content is for %s, not %s; nothing was written", term.Path(name), term.Path(rel))
	}
	fmt.Fprintf(e.Err, "git-tdd: took the content of %s out of its \"### FILE:\" answer and fence\n", term.Path(rel))
	return content, nil
}

// unattended: nobody can approve; only --force (if allowed) replaces.
func (e *Env) unattended(tree files, rel string, old []byte, o WriteOptions, oldLines int64, entry state.AuditEntry) error {
	if o.Force && e.Cfg.Write.AllowForce {
		strategy := o.Strategy
		if strategy == "" {
			strategy = edit.Replace
		}
		return e.commit(tree, rel, old, o, strategy, "force", entry)
	}
	entry.Outcome, entry.Detail = "refused", "needs approval: no terminal, or --auto"
	e.audit(entry)
	err := exitcode.New(exitcode.HumanRequired, "%s has %d lines: a human must approve replacing it; nothing was written", term.Path(rel), oldLines).
		WithDetail("Cannot replace non-trivial files in auto mode")
	if o.Force {
		err.WithDetail("[write] allow_force = false: --force does not replace it either")
	}
	hint := "a human can run it in a terminal to choose a strategy"
	if saved, serr := e.savePending(o.Content); serr == nil {
		hint = fmt.Sprintf("the new content is saved; a human can run, in a terminal:\n  git -C %s tdd write --from %s -- %s",
			term.ShellQuote(e.Repo.Top), term.ShellQuote(saved), term.ShellQuote(rel))
	}
	if prompts.IsLarge(old, e.Cfg.Patch.LargeLines, e.Cfg.Patch.LargeBytes) {
		hint += "\nthe file is large: send FIND/REPLACE blocks to git tdd patch instead of the whole file"
	}
	return err.WithHint("%s", hint)
}

// savePending keeps content an unattended write could not put in place, under
// the common git directory, so that a human can write it after all.
func (e *Env) savePending(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	p := filepath.Join(e.Store.Dir, "pending", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	return p, atomicfile.Write(p, data, 0o600)
}

// ask shows, before the question, what each strategy would write: the replace
// diff (what would be lost), where append and insert put the new lines, and the
// file extend would give; choosing one approves what was shown. With
// --strategy, it shows the diff of that strategy's result and asks to confirm.
func (e *Env) ask(tty *term.TTY, tree files, rel string, old []byte, o WriteOptions, oldLines, newLines int64, entry state.AuditEntry) error {
	w, p := tty.Writer(), tty.Palette
	fmt.Fprintf(w, "%s About to replace %d lines with %d lines in %s\n", p.Yellow("WARNING:"), oldLines, newLines, term.Path(rel))
	if o.Strategy != "" && (o.Strategy != edit.Insert || o.Line > 0) {
		return e.askGiven(tty, tree, rel, old, o, entry)
	}
	if err := e.showDiff(w, p, rel, old, o.Content); err != nil {
		return err
	}
	fmt.Fprintf(w, "append adds the %s after line %d; insert puts them before a line you choose.\n", term.Count(newLines, "new line", "new lines"), oldLines)
	extended, extendErr := edit.Merge(rel, old, o.Content, edit.Extend, 0)
	if extendErr != nil {
		fmt.Fprintf(w, "extend is not possible here: %v\n", extendErr)
	} else {
		fmt.Fprintf(w, "extend would give (%d → %d lines):\n", oldLines, gitx.CountLines(extended))
		if err := e.showDiff(w, p, rel, old, extended); err != nil {
			return err
		}
	}
	for attempt := 0; attempt < 3; attempt++ {
		strategy := o.Strategy
		if strategy == "" {
			choice, err := tty.Choose(e.Ctx, StrategyPrompt, strategies)
			if errors.Is(err, term.ErrNoAnswer) {
				choice, err = "cancel", nil
			}
			if err != nil {
				return err
			}
			strategy = choice
		}
		if strategy == "cancel" {
			return e.cancelled(rel, entry)
		}
		if strategy == edit.Extend && extendErr != nil {
			fmt.Fprintf(w, "extend: %v\n", extendErr)
			continue
		}
		opts := o
		if strategy == edit.Insert && o.Line == 0 {
			line, err := e.askLine(tty, oldLines)
			if err != nil {
				return err
			}
			opts.Line = line
		}
		err := e.commit(tree, rel, old, opts, strategy, "tty", entry)
		var merr *mergeError
		if !errors.As(err, &merr) || o.Strategy != "" {
			return err
		}
		fmt.Fprintf(w, "%s: %v\n", strategy, merr.err)
	}
	entry.Outcome = "cancelled"
	e.audit(entry)
	return exitcode.New(exitcode.Refused, "no strategy worked: %s is unchanged", rel)
}

// askGiven shows the diff of the file the given strategy would write, and asks
// to confirm it.
func (e *Env) askGiven(tty *term.TTY, tree files, rel string, old []byte, o WriteOptions, entry state.AuditEntry) error {
	data, err := edit.Merge(rel, old, o.Content, o.Strategy, o.Line)
	if err != nil {
		entry.Outcome, entry.Strategy, entry.Detail = "refused", o.Strategy, err.Error()
		e.audit(entry)
		return exitcode.New(exitcode.Refused, "%s: %v; %s is unchanged", o.Strategy, err, term.Path(rel))
	}
	w, p := tty.Writer(), tty.Palette
	fmt.Fprintf(w, "%s would give (%d → %d lines):\n", o.Strategy, gitx.CountLines(old), gitx.CountLines(data))
	if err := e.showDiff(w, p, rel, old, data); err != nil {
		return err
	}
	ok, err := e.confirm(tty, o.Strategy)
	if err != nil && !errors.Is(err, term.ErrNoAnswer) {
		return err
	}
	if !ok {
		return e.cancelled(rel, entry)
	}
	return e.commit(tree, rel, old, o, o.Strategy, "tty", entry)
}

func (e *Env) cancelled(rel string, entry state.AuditEntry) error {
	entry.Outcome, entry.ApprovedBy = "cancelled", "tty"
	e.audit(entry)
	return exitcode.New(exitcode.Refused, "cancelled: %s is unchanged", rel)
}

func (e *Env) confirm(tty *term.TTY, strategy string) (bool, error) {
	ans, err := tty.Choose(e.Ctx, fmt.Sprintf("Type APPROVE to %s, or REJECT to cancel:", strategy), []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}})
	return ans == "APPROVE", err
}

func (e *Env) askLine(tty *term.TTY, lines int64) (int, error) {
	fmt.Fprintf(tty.Writer(), "The file has %s; %d appends.\n", term.Count(lines, "line", "lines"), lines+1)
	for i := 0; i < 3; i++ {
		ans, err := tty.Line(e.Ctx, "Insert before line:")
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(ans)
		if err == nil && n >= 1 && int64(n) <= lines+1 {
			return n, nil
		}
		fmt.Fprintf(tty.Writer(), "Please give a line number from 1 to %d.\n", lines+1)
	}
	return 0, exitcode.New(exitcode.Refused, "no line to insert before: nothing was written")
}

// showDiff prints the unified diff of two versions of a file.
func (e *Env) showDiff(w io.Writer, p term.Palette, rel string, old, next []byte) error {
	d, err := e.Repo.DiffTexts(e.Ctx, rel, old, next)
	if err != nil {
		return err
	}
	showDiffText(w, p, d)
	return nil
}

// mergeError is a strategy that cannot combine the two versions.
type mergeError struct{ err error }

func (m *mergeError) Error() string { return m.err.Error() }

// commit merges with the strategy, writes atomically and audits.
func (e *Env) commit(tree files, rel string, old []byte, o WriteOptions, strategy, approvedBy string, entry state.AuditEntry) error {
	if strategy == edit.Insert && o.Line == 0 {
		entry.Outcome, entry.Strategy, entry.Detail = "refused", strategy, "no line to insert before"
		e.audit(entry)
		return exitcode.New(exitcode.Usage, "--strategy insert needs --line N: the line to insert before")
	}
	// The file may have changed while a human was deciding: write only over
	// the content that was shown.
	if now, _, _, err := tree.ReadFile(rel); err != nil || !bytes.Equal(now, old) {
		entry.Outcome, entry.Strategy, entry.Detail = "refused", strategy, "the file changed meanwhile"
		e.audit(entry)
		return exitcode.New(exitcode.Refused, "%s changed while this write was being decided; nothing was written", term.Path(rel)).
			WithHint("run the write again, to decide on its content as it is now")
	}
	data, err := edit.Merge(rel, old, o.Content, strategy, o.Line)
	if err != nil {
		entry.Outcome, entry.Strategy, entry.Detail = "refused", strategy, err.Error()
		e.audit(entry)
		return exitcode.With(exitcode.Refused, &mergeError{err})
	}
	entry.Strategy, entry.ApprovedBy = strategy, approvedBy
	entry.After = content(data, gitx.CountLines(data))
	if err := tree.Write(rel, data); err != nil {
		entry.Outcome, entry.Detail = "failed", err.Error()
		e.audit(entry)
		return fmt.Errorf("writing %s: %w (the old file is unchanged)", rel, err)
	}
	entry.Outcome = "written"
	e.audit(entry)
	fmt.Fprintf(e.Out, "wrote %s: %s, %s\n", term.Path(rel), strategy, term.Count(entry.After.Lines, "line", "lines"))
	return nil
}
