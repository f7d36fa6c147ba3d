package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/edit"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
	"golang.org/x/sync/errgroup"
)

// PatchOptions are git tdd patch's arguments.
type PatchOptions struct {
	Path   string // the file for blocks that name none
	Format string // one of edit.Formats, or "" (or "auto") for any
	Input  []byte
	DryRun bool
	JSON   bool
	Auto   bool // never ask: a patch that needs approval is refused (exit 3)
	Force  bool // without a human, apply anyway (unless [write] allow_force = false)
}

// PatchReport is patch --json's output.
type PatchReport struct {
	OK      bool           `json:"ok"`
	DryRun  bool           `json:"dry_run"`
	Formats []string       `json:"formats"` // the input's formats, in the order they come
	Files   []FileReport   `json:"files"`
	Blocks  []edit.Outcome `json:"blocks"`
	Error   string         `json:"error,omitempty"`
	// ErrorCode says why nothing was written: malformed (the input, or a
	// block's ... lines), truncated (the input ends inside a block),
	// not-applied (see the blocks), path, write-failed, does-not-parse (a .py
	// or .go result), needs-approval.
	ErrorCode string `json:"error_code,omitempty"`
}

// The error codes of a failed patch, stable for --json.
const (
	Malformed   = "malformed"
	Truncated   = "truncated"
	NotApplied  = "not-applied"
	BadPath     = "path"
	WriteFailed = "write-failed"
	NoParse     = "does-not-parse"
	NeedsHuman  = "needs-approval"
)

// FileReport is one file a patch touched.
type FileReport struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Deleted bool   `json:"deleted"`
	Written bool   `json:"written"`
	// NeedsApproval: a human approved it, or (--dry-run) would have to.
	NeedsApproval bool           `json:"needs_approval"`
	Before        *state.Content `json:"before,omitempty"`
	After         *state.Content `json:"after,omitempty"`
}

type patchFile struct {
	rel     string
	old     []byte
	exists  bool
	info    fs.FileInfo // as read, to tell an edit made meanwhile
	blocks  []edit.Block
	result  []byte
	gone    bool // after the blocks there is no file
	removed bool // the blocks delete the file
	changed bool
}

// Patch applies edit blocks in order, each against the result of the ones
// before. All or nothing: if any block fails, no file is written.
func (e *Env) Patch(o PatchOptions) error {
	rep := &PatchReport{DryRun: o.DryRun, Formats: []string{}, Files: []FileReport{}, Blocks: []edit.Outcome{}}
	blocks, err := edit.ParseBlocksAs(string(o.Input), strings.TrimPrefix(o.Format, "auto"))
	if err != nil {
		e.audit(state.AuditEntry{Path: state.CleanPath(o.Path), Strategy: "patch", Outcome: "refused", Detail: err.Error()})
		return e.patchFailed(o, rep, e.parseFailure(rep, err))
	}
	tree, err := e.open()
	if err != nil {
		return err
	}
	defer tree.Close()
	files, err := e.patchFiles(tree, o, blocks)
	if err != nil {
		rep.ErrorCode = BadPath
		return e.patchFailed(o, rep, err)
	}
	rep.Formats = formatsOf(blocks)
	failed, malformed := 0, false
	for _, f := range files {
		outcomes := f.apply()
		rep.Blocks = append(rep.Blocks, outcomes...)
		for _, oc := range outcomes {
			if oc.Failed() {
				failed++
				malformed = malformed || oc.Code == edit.Malformed
			}
		}
	}
	if failed > 0 {
		for _, f := range files {
			e.audit(state.AuditEntry{Path: f.rel, Before: describe(f.old, f.exists), Strategy: "patch", Outcome: "refused",
				Detail: fmt.Sprintf("%d of %d blocks did not apply", failed, len(blocks))})
		}
		rep.ErrorCode = NotApplied
		if malformed {
			rep.ErrorCode = Malformed
		}
		return e.patchFailed(o, rep, exitcode.New(exitcode.Refused, "%d of %d blocks did not apply; nothing was written", failed, len(blocks)))
	}
	// the syntax check (Python's own parser: the slow part on a large file)
	// and the gate's diff side by side
	var broken []string
	var gates []gated
	var g errgroup.Group
	g.Go(func() error { broken = e.unparsable(files); return nil })
	g.Go(func() (err error) { gates, err = e.gate(files); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	if len(broken) > 0 {
		for _, f := range files {
			e.audit(state.AuditEntry{Path: f.rel, Before: describe(f.old, f.exists), Strategy: "patch", Outcome: "refused", Detail: "the result does not parse"})
		}
		rep.ErrorCode = NoParse
		return e.patchFailed(o, rep, exitcode.New(exitcode.Refused, "the patched file would not parse; nothing was written").WithDetail(broken...).
			WithHint("the blocks applied, but the result is broken: fix the blocks and send them again"))
	}
	gatedFile := map[*patchFile]bool{}
	for _, g := range gates {
		gatedFile[g.f] = true
	}
	approvedBy := ""
	if len(gates) > 0 && !o.DryRun {
		if approvedBy, err = e.approve(o, gates); err != nil {
			for _, g := range gates {
				e.audit(state.AuditEntry{Path: g.f.rel, Before: describe(g.f.old, g.f.exists), Strategy: "patch", Outcome: "refused", Detail: g.why})
			}
			rep.ErrorCode = NeedsHuman
			return e.patchFailed(o, rep, err)
		}
	}
	if !o.DryRun {
		if err := e.writeAll(tree, files); err != nil {
			rep.ErrorCode = WriteFailed
			return e.patchFailed(o, rep, err)
		}
	}
	for _, f := range files {
		fr := FileReport{Path: f.rel, Created: !f.exists && !f.gone, Deleted: f.removed, Written: f.changed && !o.DryRun, NeedsApproval: gatedFile[f],
			Before: describe(f.old, f.exists), After: describe(f.result, !f.gone)}
		if fr.Written {
			entry := state.AuditEntry{Path: f.rel, Before: fr.Before, After: fr.After, Strategy: "patch", Outcome: "written",
				Detail: fmt.Sprintf("%d blocks", len(f.blocks))}
			if f.removed {
				entry.Outcome = "deleted"
			}
			if gatedFile[f] {
				entry.ApprovedBy = approvedBy
			}
			e.audit(entry)
		}
		rep.Files = append(rep.Files, fr)
	}
	rep.OK = true
	if o.JSON {
		return writeJSON(e.Out, rep)
	}
	e.printBlocks(rep.Blocks, blocks)
	for _, f := range rep.Files {
		verb := map[bool]string{true: "would write", false: "wrote"}[o.DryRun]
		switch {
		case !f.Written && !o.DryRun:
			fmt.Fprintf(e.Out, "%s is unchanged: every block was applied already\n", term.Path(f.Path))
		case f.Deleted:
			verb, after := "deleted", ""
			if o.DryRun {
				verb, after = "would delete", ", after a human approves it"
			}
			fmt.Fprintf(e.Out, "%s %s (%s)%s\n", verb, term.Path(f.Path), term.Count(f.Before.Lines, "line", "lines"), after)
		case f.Created:
			fmt.Fprintf(e.Out, "%s %s (new, %s)\n", verb, term.Path(f.Path), term.Count(f.After.Lines, "line", "lines"))
		case f.NeedsApproval && o.DryRun:
			fmt.Fprintf(e.Out, "%s %s (%d → %d lines), after a human approves it\n", verb, term.Path(f.Path), f.Before.Lines, f.After.Lines)
		default:
			fmt.Fprintf(e.Out, "%s %s (%d → %d lines)\n", verb, term.Path(f.Path), f.Before.Lines, f.After.Lines)
		}
	}
	return nil
}

// apply applies the file's blocks to its content as read, and says whether
// the result differs.
func (f *patchFile) apply() []edit.Outcome {
	var t *edit.Text
	if f.exists {
		t = edit.Parse(f.old)
	}
	res, outcomes := edit.ApplyAll(t, f.rel, f.blocks)
	f.result, f.gone = nil, res == nil
	f.removed = f.gone && f.exists
	if !f.gone {
		f.result = res.Bytes()
	}
	f.changed = f.removed || !f.gone && (!f.exists || string(f.result) != string(f.old))
	return outcomes
}

// formatsOf lists the blocks' formats, each once, in order.
func formatsOf(blocks []edit.Block) []string {
	out := []string{}
	for _, b := range blocks {
		if !slices.Contains(out, b.Format) {
			out = append(out, b.Format)
		}
	}
	return out
}

// writeAll writes every changed file atomically; if one write fails, the files
// written before it are put back (or removed, if this patch created them), so
// a patch across files is all or nothing on disk too.
func (e *Env) writeAll(tree files, files []*patchFile) error {
	// deletions last: until then, a failure has only written files to put back
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b *patchFile) int { return cmpBool(a.removed, b.removed) })
	for i, f := range files {
		if !f.changed {
			continue
		}
		err := unchanged(tree, f)
		switch {
		case err == nil && f.removed:
			err = tree.Remove(f.rel)
		case err == nil:
			err = tree.Write(f.rel, f.result)
		}
		if err == nil {
			continue
		}
		e.audit(state.AuditEntry{Path: f.rel, Before: describe(f.old, f.exists), Strategy: "patch", Outcome: "failed", Detail: err.Error()})
		var lost []string
		for _, done := range files[:i] {
			if done.changed && undo(tree, done) != nil {
				lost = append(lost, done.rel)
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("writing %s: %w; could not restore %s", f.rel, err, strings.Join(lost, ", "))
		}
		return fmt.Errorf("writing %s: %w; nothing was written (the files before it were restored)", f.rel, err)
	}
	return nil
}

// unchanged checks that the file is still as it was read (the same file, size
// and modification time): a patch never writes over an edit made meanwhile.
func unchanged(tree files, f *patchFile) error {
	now, err := tree.Stat(f.rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !f.exists:
		return nil
	case err != nil && f.exists:
		return err
	case !f.exists || f.info == nil || !os.SameFile(now, f.info) || now.Size() != f.info.Size() || !now.ModTime().Equal(f.info.ModTime()):
		return errors.New("it changed while the patch was being applied")
	}
	return nil
}

// undo puts a file back as it was read (a deleted one comes back with the
// default mode: the one thing a failure after a deletion can change).
func undo(tree files, f *patchFile) error {
	if !f.exists {
		return tree.Remove(f.rel)
	}
	return tree.Write(f.rel, f.old)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func describe(b []byte, exists bool) *state.Content {
	if !exists {
		return nil
	}
	return content(b, gitx.CountLines(b))
}

// patchFiles groups the blocks by file and reads each file through the gate.
func (e *Env) patchFiles(tree files, o PatchOptions, blocks []edit.Block) ([]*patchFile, error) {
	byName, resolved := map[string]*patchFile{}, map[string]string{}
	var order []*patchFile
	for _, b := range blocks {
		name := b.File
		if name == "" {
			name = o.Path
		}
		if name == "" {
			return nil, exitcode.New(exitcode.Usage, "block %d names no file", b.Index).
				WithHint("give the file: git tdd patch <path>, or put the file's name on the line before the block")
		}
		rel, ok := resolved[name] // blocks name the same file again and again
		if !ok {
			var err error
			if rel, err = e.resolve(tree, name); err != nil {
				return nil, err
			}
			resolved[name] = rel
		}
		f := byName[rel]
		if f == nil {
			old, _, exists, err := tree.ReadFile(rel)
			if err != nil {
				e.audit(state.AuditEntry{Path: rel, Strategy: "patch", Outcome: "refused", Detail: err.Error()})
				return nil, exitcode.Wrap(exitcode.Usage, err)
			}
			f = &patchFile{rel: rel, old: old, exists: exists}
			if exists {
				f.info, _ = tree.Stat(rel)
			}
			byName[rel] = f
			order = append(order, f)
		}
		if !f.exists && len(f.blocks) == 0 && b.Action == edit.EditFile && len(b.Find) > 0 {
			e.audit(state.AuditEntry{Path: rel, Strategy: "patch", Outcome: "refused", Detail: "the file does not exist"})
			return nil, exitcode.New(exitcode.Refused, "block %d: %s does not exist (an empty FIND creates a file)", b.Index, term.Path(rel))
		}
		f.blocks = append(f.blocks, b)
	}
	return order, nil
}

// parseFailure is exit 1: the agent's answer is unusable, and asking again
// (with fewer blocks, if it was cut off) is the way on.
func (e *Env) parseFailure(rep *PatchReport, err error) error {
	msg := "the edit blocks do not parse: %v; nothing was written"
	hint := "see the format with git tdd prompt <path> --change modify"
	rep.ErrorCode = Malformed
	if pe, ok := err.(*edit.ParseError); ok && pe.Truncated {
		rep.ErrorCode = Truncated
		msg = "the edit blocks are cut off: %v; nothing was written"
		hint = "the answer probably hit the agent's output limit: ask again for fewer blocks at a time"
	}
	return exitcode.New(exitcode.Refused, msg, err).WithHint("%s", hint)
}

func (e *Env) patchFailed(o PatchOptions, rep *PatchReport, err error) error {
	if o.JSON {
		rep.Error = err.Error()
		writeJSON(e.Out, rep)
		return exitcode.Silent(exitcode.Of(err))
	}
	var detail []string
	for _, oc := range rep.Blocks {
		if !oc.Failed() {
			continue
		}
		detail = append(detail, fmt.Sprintf("  block %d, %s: %s", oc.Block, term.Path(oc.File), oc.Message))
		detail = append(detail, indentBlock(oc.Detail, "    ")...)
	}
	if len(detail) > 0 {
		return exitcode.With(exitcode.Of(err), err).WithDetail(detail...)
	}
	return err
}

// printBlocks reports, per block, where and by which tier it applied.
func (e *Env) printBlocks(outs []edit.Outcome, blocks []edit.Block) {
	byIndex := map[int]edit.Block{}
	for _, b := range blocks {
		byIndex[b.Index] = b
	}
	for _, oc := range outs {
		b := byIndex[oc.Block]
		name := fmt.Sprintf("block %d", oc.Block)
		if b.Description != "" {
			name += " (" + term.Line(b.Description, 80) + ")"
		}
		file := term.Path(oc.File)
		switch {
		case oc.Code == edit.AlreadyApplied && oc.Start == 0:
			fmt.Fprintf(e.Out, "%s: already applied in %s\n", name, file)
		case oc.Code == edit.AlreadyApplied:
			fmt.Fprintf(e.Out, "%s: already applied in %s (%s)\n", name, file, span(oc.Start, oc.End))
		case b.Action == edit.DeleteFile:
			fmt.Fprintf(e.Out, "%s: deletes %s\n", name, file)
		case b.Action == edit.AddFile && strings.HasPrefix(oc.Message, "replaced"):
			fmt.Fprintf(e.Out, "%s: replaces all of %s\n", name, file)
		case b.Action == edit.AddFile || len(b.Find) == 0 && oc.Message == "created the file":
			fmt.Fprintf(e.Out, "%s: creates %s\n", name, file)
		case len(b.Find) == 0:
			fmt.Fprintf(e.Out, "%s: inserted into %s at %s\n", name, file, span(oc.Start, oc.End))
		case len(oc.Pieces) > 0:
			var at []string
			for _, p := range oc.Pieces {
				at = append(at, strings.TrimPrefix(strings.TrimPrefix(span(p.Start, p.End), "lines "), "line "))
			}
			fmt.Fprintf(e.Out, "%s: applied in %d pieces to %s at lines %s (%s match)\n", name, len(oc.Pieces), file, strings.Join(at, ", "), oc.Tier)
		case oc.End < oc.Start:
			fmt.Fprintf(e.Out, "%s: deleted from %s before line %d (%s match)\n", name, file, oc.Start, oc.Tier)
		default:
			fmt.Fprintf(e.Out, "%s: applied to %s at %s (%s match%s)\n", name, file, span(oc.Start, oc.End), oc.Tier, edit.TieNote(oc.Tie))
		}
	}
}

// span names lines of a file for people: "line 4", "lines 4–9".
func span(start, end int) string {
	if start == end {
		return fmt.Sprintf("line %d", start)
	}
	return fmt.Sprintf("lines %d–%d", start, end)
}

func indentBlock(s, prefix string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + term.Line(lines[i], 400)
	}
	return lines
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
