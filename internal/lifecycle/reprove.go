package lifecycle

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/surface"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Proved is what a re-proof established.
type Proved struct {
	Red     string   `json:"red"`     // the red commit
	Failing []string `json:"failing"` // its recorded tests, which fail there again
	Passing int      `json:"passing"` // tests that pass on the merged tree
}

func (p *Proved) String() string {
	return fmt.Sprintf("the red at %s fails (%s), the merge passes (%s)", short(p.Red), redCount(p.Failing), term.Count(p.Passing, "test", "tests"))
}

// reprove proves a TDD cycle again from git objects alone, in a temporary
// worktree and sealed runs: the red's recorded tests fail at the red commit,
// and the whole suite (and the lint) passes on tree, the merge's result.
// Nothing of the workflow's own worktree, and nothing of state.toml, is used.
func (e *Env) reprove(cfg *config.Config, red *RedCommit, tree, label string) (*Proved, error) {
	dir, err := os.MkdirTemp("", "git-tdd-proof-"+label+"-")
	if err != nil {
		return nil, err
	}
	if err := e.Repo.AddDetachedWorktree(e.Ctx, dir, red.ID); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer func() {
		ctx := context.WithoutCancel(e.Ctx)
		e.Repo.RemoveWorktree(ctx, dir, true)
		os.RemoveAll(dir)
	}()
	tmp := e.Repo.At(dir)
	if err := e.setup(cfg, dir); err != nil {
		return nil, err
	}
	r := rules(cfg)
	res, err := e.runTests(cfg, dir, red.Failing)
	if err != nil {
		return nil, err
	}
	if err := e.unchangedFrom(tmp, r, red.Tree); err != nil {
		return nil, err
	}
	if bad := redFails(res, red.Failing, ModulesOf(dir, cfg.Test.Env["PYTHONPATH"])); len(bad) > 0 {
		return nil, exitcode.New(exitcode.Refused, "the red does not reproduce at %s: its recorded tests do not fail there", short(red.ID)).
			WithDetail(indent(bad)...)
	}
	if err := tmp.CheckoutTree(e.Ctx, tree); err != nil {
		return nil, err
	}
	res, err = e.runTests(cfg, dir, nil)
	if err != nil {
		return nil, err
	}
	if err := e.unchangedFrom(tmp, r, tree); err != nil {
		return nil, err
	}
	if v := CheckGreen(res, red.Failing); v.Kind != KindGreen {
		return nil, exitcode.New(v.Code, "the merged tree does not pass: %s", v.Message).WithDetail(indent(v.List)...)
	}
	if err := e.lint(cfg, dir); err != nil {
		return nil, err
	}
	return &Proved{Red: red.ID, Failing: red.Failing, Passing: len(res.With(runner.Passed))}, nil
}

// redFails says which recorded red tests do not fail in a run of them: a test
// id must fail by assertion; a test file must fail to import something of the
// repository or hold a failing test. A red of the generic runner (no ids)
// needs the command to fail.
func redFails(r *runner.Result, ids []string, mods Modules) []string {
	switch {
	case r.TimedOut:
		return []string{"the run timed out"}
	case r.Exit == 3 || r.Exit < 0:
		return []string{"the run broke (" + pytestMeaning(r.Exit) + ")"}
	case len(ids) == 0 && r.Exit == 0:
		return []string{"the tests pass"}
	}
	var bad []string
	for _, id := range ids {
		if isFileID(id) {
			if !fileFails(r, id, mods) {
				bad = append(bad, id+" imports, and none of its tests fails")
			}
			continue
		}
		t, ok := r.Find(id)
		switch {
		case !ok:
			bad = append(bad, id+" was not run (not found)")
		case t.Outcome != runner.Failed:
			bad = append(bad, id+" "+string(t.Outcome))
		}
	}
	return bad
}

func fileFails(r *runner.Result, file string, mods Modules) bool {
	for _, t := range r.Tests {
		if t.File != file {
			continue
		}
		if t.Collection && mods.NaturalCause(t.Message) || !t.Collection && t.Outcome == runner.Failed {
			return true
		}
	}
	return false
}

// frozenAtTip refuses a tip whose frozen surface is not the red commit's, or
// whose branch added a symlink the tests would follow out of it.
func (e *Env) frozenAtTip(r surface.Rules, red *RedCommit, fork string) error {
	branch, err := e.Repo.ChangedBlobs(e.Ctx, fork, red.TipTree)
	if err != nil {
		return err
	}
	links, err := linkEscapes(e.Ctx, e.Repo, r, branch, red.TipTree)
	if err != nil {
		return err
	}
	if err := linkError(links); err != nil {
		return err
	}
	changes, err := sinceRed(e.Ctx, e.Repo, r, red, red.TipTree, fork)
	if err != nil || len(changes) == 0 {
		return err
	}
	return surfaceError(fmt.Sprintf("the frozen test surface at the tip is not the red commit's (%s)", short(red.ID)), changes).
		WithHint("put the tests back as the red had them, or prove the new ones with git tdd red and git tdd green")
}

// labelOf makes an issue name part of a temporary directory's name.
func labelOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator {
			return '-'
		}
		return r
	}, s)
}
