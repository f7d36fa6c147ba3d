package agentloop

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/contextcheck"
	"github.com/git-tdd/git-tdd/internal/excerpt"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/pathglob"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/surface"
	"github.com/git-tdd/git-tdd/internal/term"
)

// named reads the design and the context files of a new run from where the
// human named them (the checkout run is called in, tracked or not), checked
// as git tdd context checks them; a large Python or Go file is sent in part.
func (l *loop) named(limits config.Context) *contextcheck.Result {
	paths := l.Context
	if l.LLD != "" {
		paths = append([]string{l.LLD}, paths...)
	}
	res := contextcheck.Fit(l.L.Repo.Top, l.L.Cwd, paths, limits, nil, excerpt.Want{}, l.L.Repo.GitDir, l.L.Repo.CommonDir)
	if l.LLD != "" && len(res.Files) > 0 {
		res.Files = l.refit(res.Files, designWant(res.Files[0].Source), limits)
	}
	res.Tokens = 0
	for _, f := range res.Files {
		res.Tokens += f.Tokens
	}
	return res
}

// refit fits the files again for what want names, and counts what is sent.
func (l *loop) refit(files []contextcheck.File, want excerpt.Want, limits config.Context) []contextcheck.File {
	out := make([]contextcheck.File, 0, len(files))
	for _, f := range files {
		if g, why := contextcheck.Accept(f.Path, []byte(f.Source), limits.MaxFileBytes, &want); why == "" {
			f = g
		}
		if l.Count != nil {
			f.Tokens = l.Count(f.Content)
		}
		out = append(out, f)
	}
	return out
}

// designWant is what a design names in its code.
func designWant(doc string) excerpt.Want {
	return excerpt.Want{Names: excerpt.CodeIdentifiers(doc)}
}

// keep saves the files as the workflow's record of them: what every prompt
// of the workflow sends, whatever becomes of the files named.
func (l *loop) keep(files []contextcheck.File) error {
	for _, f := range files {
		if err := l.L.Store.SaveContext(l.w.Name, f.Path, []byte(f.Source)); err != nil {
			return exitcode.New(exitcode.Usage, "could not keep %s in the workflow's record: %v; no agent was called", term.Path(f.Path), err)
		}
	}
	return nil
}

// kept are the workflow's design and context files as its record keeps them.
// One not kept yet (a workflow git tdd start began, or an older git tdd's) is
// read now from the checkout and kept; one that cannot be read stops the run
// before any agent call (exit 2), naming it and why.
func (l *loop) kept() ([]contextcheck.File, error) {
	paths := slices.Clone(l.w.Context)
	if l.w.LLD != "" {
		paths = append([]string{l.w.LLD}, paths...)
	}
	res := &contextcheck.Result{}
	for _, rel := range paths {
		b, err := l.L.Store.Context(l.w.Name, rel)
		if errors.Is(err, fs.ErrNotExist) {
			one := contextcheck.Fit(l.L.Repo.Top, l.L.Repo.Top, []string{rel}, l.cfg.Context, nil, excerpt.Want{}, l.L.Repo.GitDir, l.L.Repo.CommonDir)
			res.Problems = append(res.Problems, one.Problems...)
			if one.OK() {
				if err := l.keep(one.Files); err != nil {
					return nil, err
				}
				res.Files = append(res.Files, one.Files[0])
			}
			continue
		}
		if err != nil {
			res.Problems = append(res.Problems, contextcheck.Problem{Path: rel, Reason: "its copy in the workflow's record cannot be read: " + err.Error()})
			continue
		}
		f, why := contextcheck.Accept(rel, b, l.cfg.Context.MaxFileBytes, &excerpt.Want{})
		if why != "" {
			res.Problems = append(res.Problems, contextcheck.Problem{Path: rel, Reason: why})
			continue
		}
		res.Files = append(res.Files, f)
	}
	if err := res.Err(fmt.Sprintf("the design or context of #%s cannot be sent; no agent was called", l.Issue)); err != nil {
		return nil, err
	}
	if l.w.LLD != "" {
		res.Files = l.refit(res.Files, designWant(res.Files[0].Source), l.cfg.Context)
	}
	return res.Files, nil
}

// prompt gathers what the node's prompt says: the design and the context as
// the record keeps them, the conventions, how the last attempt went, and the
// files (gather). A file over the size limit is sent in part: its imports,
// outline and the definitions the tests, the failure and the design name.
func (l *loop) prompt(tests bool) (prompts.Loop, error) {
	// the feedback carries test output, which a test can fill with any file
	feedback := contextcheck.Redact(l.run.Feedback)
	p := prompts.Loop{Issue: l.Issue, Feedback: feedback, Outcome: l.run.Outcome, Attempt: l.attempt(), Max: l.max(),
		MaxLines: l.cfg.Patch.LargeLines, MaxBytes: l.cfg.Patch.LargeBytes, EditsFiles: l.Agent.EditsFiles()}
	p.Conventions = prompts.Conventions{Command: l.cfg.Test.Command, Runner: l.cfg.Test.Runner, TestPaths: l.cfg.Test.TestPaths}
	if !tests {
		for _, r := range l.run.Rejections {
			// the human's words, from a file: bounded, and a pasted secret redacted
			p.Rejections = append(p.Rejections, contextcheck.Redact(state.BoundReason(r.Reason)))
		}
	}
	named, err := l.kept()
	if err != nil {
		return p, err
	}
	g, err := l.gather(tests, named, feedback)
	if err != nil {
		return p, err
	}
	want := designWant("")
	if l.w.LLD != "" && len(named) > 0 {
		want = designWant(named[0].Source)
	}
	if !tests { // the failing tests name what N3 needs; N1's example only shows a style
		for _, t := range g.sources[:g.tests] {
			maps.Copy(want.Names, excerpt.Identifiers(t.Source))
		}
	}
	maps.Copy(want.Names, excerpt.Identifiers(feedback))
	fit := func(f contextcheck.File) prompts.File {
		w := want
		w.Lines = g.lines[f.Path]
		if part, why := contextcheck.Accept(f.Path, []byte(f.Source), l.cfg.Context.MaxFileBytes, &w); why == "" {
			f = part
		}
		return prompts.File{Path: f.Path, Content: f.Content, Sent: f.Sent, Lines: lineCount(f.Source), Bytes: len(f.Source)}
	}
	for i, f := range named {
		if i == 0 && l.w.LLD != "" {
			p.LLD = fit(f)
		} else {
			p.Context = append(p.Context, fit(f))
		}
	}
	for i, f := range g.sources {
		switch {
		case tests && i < g.tests:
			p.Conventions.Examples = append(p.Conventions.Examples, fit(f))
		case i < g.tests:
			p.Tests = append(p.Tests, fit(f))
		default:
			p.Files = append(p.Files, fit(f))
		}
	}
	l.budget(&p)
	l.progress("sending %s", sent(p))
	return p, nil
}

// gathered are a prompt's files, each whole as the context checks read it:
// the first tests of them the tests (N3) or the style example (N1), then what
// the tests import, then what the failure names; and the lines of each file
// the failure points at.
type gathered struct {
	sources []contextcheck.File
	tests   int
	lines   map[string][]int
}

// gather finds the prompt's files: at N1 an example of the repository's
// tests, at N3 the failing tests and the files they import; at both, the
// files the test output names. What the design or context sent already is
// not sent twice.
func (l *loop) gather(tests bool, named []contextcheck.File, feedback string) (gathered, error) {
	var g gathered
	wt := l.L.Repo.At(l.w.Worktree)
	files, err := wt.Files(l.ctx)
	if err != nil {
		return g, escalate(err)
	}
	inRepo := map[string]bool{}
	for _, f := range files {
		inRepo[f] = true
	}
	rules := surface.New(l.cfg.Test.TestPaths, l.cfg.Test.FreezeGlobs())
	g.lines = l.failureLines(feedback, inRepo)
	seen := map[string]bool{}
	for _, f := range named {
		seen[f.Path] = true
	}
	add := func(rel string) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		if f, ok := l.source(rel); ok {
			g.sources = append(g.sources, f)
		}
	}
	if tests {
		if ex := l.styleExample(wt, files, rules); ex != "" {
			add(ex)
		}
		g.tests = len(g.sources)
	} else if err := l.failingAndImported(wt, inRepo, rules, add, &g); err != nil {
		return g, err
	}
	for _, rel := range slices.Sorted(maps.Keys(g.lines)) {
		if tests || !rules.Frozen(rel) {
			add(rel)
		}
	}
	return g, nil
}

// failingAndImported adds the files of the red's failing tests, then the
// files of the repository they import that the tests do not freeze.
func (l *loop) failingAndImported(wt *gitx.Repo, inRepo map[string]bool, rules surface.Rules, add func(string), g *gathered) error {
	red, err := lifecycle.LastRed(l.ctx, wt, l.w.BaseCommit, "HEAD")
	if err != nil || red == nil {
		return escalate(fmt.Errorf("no red commit to implement: %v", err))
	}
	// the tests' files and imports are read in the worktree: a symlink in it
	// leads nowhere outside
	root, err := os.OpenRoot(l.w.Worktree)
	if err != nil {
		return escalate(err)
	}
	defer root.Close()
	for _, id := range red.Failing {
		if f, _, _ := strings.Cut(id, "::"); inRepo[f] { // pytest's file::name
			add(f)
			continue
		}
		for _, f := range excerpt.GoTestFiles(root.FS(), id) { // go's package.TestName
			if inRepo[f] {
				add(f)
			}
		}
	}
	g.tests = len(g.sources)
	for _, t := range g.sources[:g.tests] {
		for _, m := range excerpt.Imported(root.FS(), l.importRoots(), t.Path, t.Source) {
			if inRepo[m] && !rules.Frozen(m) {
				add(m)
			}
		}
	}
	return nil
}

// budget keeps the prompt's files within [context] max_tokens (seed 002:
// 200k): over it, the files the imports and the failure led to are left
// out, the last found first, each with a line that says so.
func (l *loop) budget(p *prompts.Loop) {
	if l.Count == nil {
		return
	}
	total := 0
	for _, f := range slices.Concat([]prompts.File{p.LLD}, p.Context, p.Conventions.Examples, p.Tests, p.Files) {
		total += l.Count(f.Content)
	}
	for max := l.cfg.Context.MaxTokens; total > max && len(p.Files) > 0; {
		last := p.Files[len(p.Files)-1]
		p.Files = p.Files[:len(p.Files)-1]
		n := l.Count(last.Content)
		l.progress("not sent to the agent: %s: refused: with it the prompt's files are %d tokens, over the budget of %d", term.Path(last.Path), total, max)
		total -= n
	}
}

// sent lists the prompt's files and what of each is sent.
func sent(p prompts.Loop) string {
	var out []string
	all := slices.Concat([]prompts.File{p.LLD}, p.Context, p.Conventions.Examples, p.Tests, p.Files)
	for _, f := range all {
		if f.Path != "" {
			out = append(out, fmt.Sprintf("%s (%s)", f.Path, f.Sent))
		}
	}
	if len(out) == 0 {
		return "no file"
	}
	return strings.Join(out, ", ")
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// source is a file of the worktree for a prompt, whole, through the context
// checks (the path gate, secrets by name and content, binary): ok is false,
// and a progress line says why, when they refuse it. Files named at start
// were checked then, but may have changed since; a test can import anything.
func (l *loop) source(rel string) (contextcheck.File, bool) {
	wt := l.L.Repo.At(l.w.Worktree)
	res := contextcheck.Fit(l.w.Worktree, l.w.Worktree, []string{rel}, l.cfg.Context, nil, excerpt.Want{}, wt.GitDir, wt.CommonDir)
	if len(res.Problems) > 0 || len(res.Files) != 1 {
		why := "not read"
		if len(res.Problems) > 0 {
			why = res.Problems[0].Reason
		}
		l.progress("not sent to the agent: %s: refused: %s", term.Path(rel), why)
		return contextcheck.File{}, false
	}
	return res.Files[0], true
}

// failureLines are the repository's files the test output points at, and
// the lines.
func (l *loop) failureLines(output string, inRepo map[string]bool) map[string][]int {
	out := map[string][]int{}
	for _, r := range excerpt.Named(output) {
		p := filepath.FromSlash(r.Path)
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(l.w.Worktree, p)
			if err != nil {
				continue
			}
			p = rel
		}
		rel := path.Clean(filepath.ToSlash(p))
		if !inRepo[rel] {
			rel = onlyWithSuffix(inRepo, "/"+rel) // go test names files from the package's directory
		}
		if rel != "" && !slices.Contains(out[rel], r.Line) {
			out[rel] = append(out[rel], r.Line)
		}
	}
	return out
}

// onlyWithSuffix is the one file whose path ends in suffix, or "".
func onlyWithSuffix(files map[string]bool, suffix string) string {
	found := ""
	for f := range files {
		if strings.HasSuffix(f, suffix) {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	return found
}

// importRoots are Python's import roots in the worktree, relative to it.
func (l *loop) importRoots() []string {
	var out []string
	for _, r := range lifecycle.ModulesOf(l.w.Worktree, l.cfg.Test.Env["PYTHONPATH"]).Roots {
		if rel, err := filepath.Rel(l.w.Worktree, r); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// styleExample is the test file of the repository whose style N1 follows:
// the most recently changed one under test_paths that has content (not an
// empty __init__.py), by the worktree's history, else the first such file.
func (l *loop) styleExample(wt *gitx.Repo, files []string, rules surface.Rules) string {
	inRepo := map[string]bool{}
	for _, f := range files {
		inRepo[f] = true
	}
	ok := func(f string) bool {
		base := path.Base(f)
		if !inRepo[f] || base == "__init__.py" || base == "conftest.py" {
			return false
		}
		isTest := strings.HasSuffix(f, ".py") && pathglob.Any(l.cfg.Test.TestPaths, f) || strings.HasSuffix(f, "_test.go")
		if !isTest || !rules.Frozen(f) {
			return false
		}
		fi, err := os.Stat(filepath.Join(l.w.Worktree, filepath.FromSlash(f)))
		return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
	}
	recent, _ := wt.RecentlyChanged(l.ctx, "HEAD", 500, nil)
	for _, f := range slices.Concat(recent, files) {
		if ok(f) {
			return f
		}
	}
	return ""
}

// outcome says in a few words why an attempt did not pass, for the next
// prompt's heading: from the gate's sealed test run when it ran one.
func outcome(node string, why error, last *lifecycle.GateResult) string {
	if last != nil && last.Run != nil && last.Message == why.Error() && node == Implement {
		if n := len(last.Run.With(runner.Failed)) + len(last.Run.With(runner.Errored)); n > 0 {
			return term.Count(n, "test still fails", "tests still fail")
		}
	}
	first, _, _ := strings.Cut(why.Error(), "\n")
	return term.Line(first, 200)
}
