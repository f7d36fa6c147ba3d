package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/term"
)

// MergeCheck is one git tdd merge as verify re-proved it.
type MergeCheck struct {
	Commit   string   `json:"commit"`
	Issue    string   `json:"issue"`
	Subject  string   `json:"subject"`
	OK       bool     `json:"ok"`
	Proved   *Proved  `json:"proved"`  // null when it is not proved
	Problem  string   `json:"problem"` // "" when it holds
	Details  []string `json:"details"`
	ExitCode int      `json:"exit_code"`
	// merge: the commit says it is a git tdd merge (its issue trailer); the
	// others are on the chain only to be refused
	merge bool
}

// VerifyReport is what verify --json prints.
type VerifyReport struct {
	Range  string       `json:"range"`
	Merges []MergeCheck `json:"merges"`
	Failed []string     `json:"failed"` // the issues whose merges do not hold
}

// Verify re-proves every merge made by git tdd merge on the first-parent chain
// of rangeSpec, oldest first, from the history alone (DESIGN §5): the last red
// of the merged branch fails at its commit, the branch tip's frozen surface is
// that red's, and the merge commit's tree passes. The configuration is the one
// committed at the range's base, which the range cannot change; without a base,
// each merge's first parent.
//
// With all, every commit of the chain must be such a merge: nothing reaches
// the branch without a proved cycle. A commit git tdd wrote as a gate
// (TDD-Phase) is refused on the chain in any case: red and green reach a
// branch only as the second parent of a git tdd merge.
func (e *Env) Verify(rangeSpec string, all, asJSON bool) error {
	spec := rangeSpec
	if spec == "" {
		spec = "@{upstream}..HEAD"
	}
	if strings.HasPrefix(spec, "-") {
		return exitcode.New(exitcode.Usage, "invalid range %q", spec)
	}
	commits, err := e.Repo.FirstParentTrailers(e.Ctx, spec, MergeTrailer, PhaseTrailer)
	if err != nil {
		ee := exitcode.With(exitcode.Usage, err)
		if rangeSpec == "" {
			ee.WithHint("name the commits to check, e.g. git tdd verify origin/main..HEAD")
		}
		return ee
	}
	cfgAt, err := e.rangeBase(spec)
	if err != nil {
		return err
	}
	rep := VerifyReport{Range: spec, Merges: []MergeCheck{}, Failed: []string{}}
	for i := len(commits) - 1; i >= 0; i-- {
		c := commits[i]
		var m MergeCheck
		switch {
		case len(c.Trailers[PhaseTrailer]) > 0:
			// red and green land inside an approved merge, never on the branch itself
			m = MergeCheck{Commit: c.ID, Subject: c.Subject, ExitCode: exitcode.Refused,
				Problem: fmt.Sprintf("a git tdd gate commit (%s: %s) on the first-parent chain: it lands only through git tdd merge", PhaseTrailer, c.Trailers[PhaseTrailer][0])}
		case len(c.Trailers[MergeTrailer]) > 0:
			m = e.verifyMerge(c, cfgAt)
		case all:
			m = MergeCheck{Commit: c.ID, Subject: c.Subject, Problem: notMerge, ExitCode: exitcode.Refused}
		default:
			continue
		}
		if m.Details == nil {
			m.Details = []string{}
		}
		rep.Merges = append(rep.Merges, m)
		if !m.OK {
			rep.Failed = append(rep.Failed, m.name())
		}
		if !asJSON {
			printCheck(e, m)
		}
	}
	if asJSON {
		if err := writeJSON(e.Out, rep); err != nil {
			return err
		}
	}
	if err := verifyFailed(rep); err != nil {
		return err
	}
	n := len(rep.Merges)
	if !asJSON {
		if n == 0 {
			fmt.Fprintf(e.Out, "There are no git tdd merges in %s.\n", spec)
		} else {
			fmt.Fprintf(e.Out, "%s in %s re-proved.\n", term.Count(n, "git tdd merge", "git tdd merges"), spec)
		}
	}
	return nil
}

// notMerge is the problem of a commit --all finds on the chain that no git tdd
// merge made.
const notMerge = "not a git tdd merge"

// verifyFailed says what does not hold: the git tdd merges that cannot be
// re-proved, and apart from them the commits that are not git tdd merges.
func verifyFailed(rep VerifyReport) error {
	var merges, failed, others []string
	for _, m := range rep.Merges {
		switch {
		case m.merge:
			merges = append(merges, m.name())
			if !m.OK {
				failed = append(failed, m.name())
			}
		case !m.OK:
			others = append(others, m.name())
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %s in %s cannot be re-proved: %s", len(failed), term.Count(len(merges), "git tdd merge", "git tdd merges"), rep.Range, strings.Join(failed, ", ")))
	}
	if len(others) > 0 {
		parts = append(parts, fmt.Sprintf("%s in %s %s: %s", term.Count(len(others), "commit", "commits"), rep.Range, term.Pick(len(others), "is not a git tdd merge", "are not git tdd merges"), strings.Join(others, ", ")))
	}
	if len(parts) == 0 {
		return nil
	}
	return exitcode.New(exitcode.Refused, "%s", strings.Join(parts, "; "))
}

// name is how a check is named in the summary: its issue, or its commit.
func (m MergeCheck) name() string {
	if m.Issue != "" {
		return "#" + m.Issue
	}
	return short(m.Commit)
}

// rangeBase is the commit whose configuration governs a range: its lower
// bound ("A" of A..B), or "" when it has none. Both ends must be commits.
func (e *Env) rangeBase(spec string) (string, error) {
	left, right, ok := strings.Cut(spec, "..")
	if !ok {
		right = spec
	}
	right = strings.TrimPrefix(right, ".")
	if right != "" {
		if _, err := e.Repo.ResolveCommit(e.Ctx, right); err != nil {
			return "", exitcode.With(exitcode.Usage, err)
		}
	}
	if left == "" {
		return "", nil
	}
	base, err := e.Repo.ResolveCommit(e.Ctx, left)
	if err != nil {
		return "", exitcode.With(exitcode.Usage, err)
	}
	return base, nil
}

// verifyMerge re-proves one merge commit.
func (e *Env) verifyMerge(c gitx.TrailedCommit, cfgAt string) MergeCheck {
	m := MergeCheck{Commit: c.ID, Issue: c.Trailers[MergeTrailer][0], Subject: c.Subject, merge: true}
	fail := func(err error) MergeCheck {
		m.Problem = err.Error()
		m.Details, _ = exitcode.Lines(err)
		m.ExitCode = exitcode.Of(err)
		return m
	}
	if len(c.Parents) != 2 {
		return fail(exitcode.New(exitcode.Refused, "it is not a merge of two commits"))
	}
	// git tdd merge writes exactly the merge of the two: a tree edited on the
	// way in is not what was proved
	merged, conflicts, err := e.Repo.MergeTree(e.Ctx, c.Parents[0], c.Parents[1])
	switch {
	case err != nil:
		return fail(err)
	case len(conflicts) > 0 || merged != c.Tree:
		return fail(exitcode.New(exitcode.Refused, "its tree is not the merge of its parents: it was changed on the way in"))
	}
	fork, err := e.Repo.MergeBase(e.Ctx, c.Parents[0], c.Parents[1])
	if err != nil {
		return fail(err)
	}
	if cfgAt == "" {
		cfgAt = c.Parents[0]
	}
	cfg, err := e.Config(cfgAt)
	if err != nil {
		return fail(err)
	}
	red, err := LastRed(e.Ctx, e.Repo, fork, c.Parents[1])
	if err != nil {
		return fail(err)
	}
	if red == nil {
		return fail(exitcode.New(exitcode.Refused, "the merged branch has no red commit (%s: red)", PhaseTrailer))
	}
	if err := e.frozenAtTip(cfg, red, fork); err != nil {
		return fail(err)
	}
	proved, err := e.reprove(cfg, red, fork, c.Parents[0], c.Tree, "verify-"+labelOf(m.Issue))
	if err != nil {
		var ee *exitcode.Error
		if !errors.As(err, &ee) {
			err = exitcode.With(exitcode.Escalate, err)
		}
		return fail(err)
	}
	m.OK, m.Proved = true, proved
	return m
}

// printCheck prints a merge's check; its issue comes from a trailer and its
// details from a test run, both written by whoever wrote the commits: each
// line is escaped.
func printCheck(e *Env, m MergeCheck) {
	what := "Merge #" + term.Line(m.Issue, 60)
	if m.Issue == "" {
		what = term.Line(m.Subject, 60)
	}
	if m.OK {
		fmt.Fprintf(e.Out, "%s %s: proved: %s\n", short(m.Commit), what, m.Proved)
		return
	}
	if !m.merge && m.Problem == notMerge {
		// nothing to prove: named for what it is
		fmt.Fprintf(e.Out, "%s %s: %s\n", short(m.Commit), what, notMerge)
		return
	}
	fmt.Fprintf(e.Out, "%s %s: NOT PROVED: %s\n", short(m.Commit), what, term.Message(m.Problem))
	for _, d := range m.Details {
		fmt.Fprintf(e.Out, "  %s\n", term.Message(strings.TrimSpace(d)))
	}
}
