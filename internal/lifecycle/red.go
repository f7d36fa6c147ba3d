package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/state"
)

// maxTrailerIDs caps the TDD-Failing trailers of a red commit.
const maxTrailerIDs = 20

// Red proves that tests of this branch fail by assertion, records the failing
// ids and a hash of every test file, and commits everything as the red.
func (e *Env) Red(issue string) error {
	w, err := e.active(issue)
	if err != nil {
		return err
	}
	if w.Phase == state.PhaseRed {
		fmt.Fprintf(e.Err, "git-tdd: #%s is red already; a new red replaces it (use it to change the tests)\n", w.Issue)
	}
	cfg, err := e.Config(w.BaseCommit)
	if err != nil {
		return err
	}
	wt := e.Repo.At(w.Worktree)
	res, err := e.runTests(cfg, w.Worktree)
	if err != nil {
		return err
	}
	changed, err := changedTests(e, wt, w, cfg)
	if err != nil {
		return err
	}
	attachGoFiles(w.Worktree, res, changed)
	v := RouteRed(RedInput{Result: res, ChangedTests: changed, MaxRetries: cfg.Test.MaxRetries, Attempts: w.Attempts.Red,
		Hollow: func(t runner.Test) bool {
			src, err := os.ReadFile(filepath.Join(w.Worktree, filepath.FromSlash(t.File)))
			return err == nil && Hollow(t.File, t.ID, src)
		}})
	if v.Kind != KindRed {
		return e.refuse(w, "tdd red", v, func(w *state.Workflow) { w.Attempts.Red++ })
	}
	files, err := wt.Files(e.Ctx)
	if err != nil {
		return err
	}
	hashes := hashFiles(w.Worktree, testFiles(files, cfg.Test.TestPaths))
	commit, err := e.commitAll(wt, redMessage(w.Issue, v.Failing, len(changed)), true)
	if err != nil {
		return err
	}
	err = e.update(w.Issue, func(w *state.Workflow) error {
		w.Phase = state.PhaseRed
		w.Red = state.RedRecord{Commit: commit, Failing: v.Failing, TestFiles: hashes}
		w.Green = state.Commit{}
		w.Attempts = state.Attempts{}
		return nil
	})
	if err != nil {
		return fmt.Errorf("committed the red as %s but could not record it: %w", short(commit), err)
	}
	e.audit(state.AuditEntry{Command: "tdd red", Issue: w.Issue, Tree: commit, Outcome: "red", Detail: strings.Join(v.Failing, " ")})
	fmt.Fprintf(e.Out, "red: %s\n", v.Message)
	printList(e.Out, "FAILED", v.Failing)
	fmt.Fprintf(e.Out, "committed %s test(#%s): red — %d failing\nnext: make them pass, then run: git tdd green\n", short(commit), w.Issue, len(v.Failing))
	return nil
}

// refuse reports a verdict that is not a pass, counting the attempt if it does.
func (e *Env) refuse(w *state.Workflow, command string, v Verdict, count func(*state.Workflow)) error {
	if v.Attempt {
		if err := e.update(w.Issue, func(w *state.Workflow) error { count(w); return nil }); err != nil {
			return err
		}
	}
	e.audit(state.AuditEntry{Command: command, Issue: w.Issue, Outcome: v.Kind, Detail: v.Message})
	var detail []string
	for _, id := range v.List {
		detail = append(detail, "  "+id)
	}
	return exitcode.New(v.Code, "%s", v.Message).WithDetail(detail...)
}

// changedTests are the test files added or changed on the branch: committed,
// staged, unstaged or new.
func changedTests(e *Env, wt *gitx.Repo, w *state.Workflow, cfg *config.Config) (map[string]bool, error) {
	files, err := wt.ChangedSince(e.Ctx, w.BaseCommit)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, f := range testFiles(files, cfg.Test.TestPaths) {
		out[f] = true
	}
	return out, nil
}

// attachGoFiles finds, for go tests (reported by package), the changed test file
// that declares each one.
func attachGoFiles(dir string, res *runner.Result, changed map[string]bool) {
	for i, t := range res.Tests {
		if t.File != "" || res.Runner != "go" {
			continue
		}
		name := t.ID[strings.LastIndexByte(t.ID, '.')+1:]
		name, _, _ = strings.Cut(name, "/")
		decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(`)
		for f := range changed {
			if !strings.HasSuffix(f, "_test.go") {
				continue
			}
			if src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil && decl.Match(src) {
				res.Tests[i].File = f
				break
			}
		}
	}
}

// commitAll commits every change of the worktree and returns the new commit.
func (e *Env) commitAll(wt *gitx.Repo, message string, allowEmpty bool) (string, error) {
	if err := wt.AddAll(e.Ctx); err != nil {
		return "", err
	}
	if err := wt.Commit(e.Ctx, message, allowEmpty); err != nil {
		return "", exitcode.With(exitcode.Refused, err).WithHint("nothing was recorded; a hook of yours may have refused the commit")
	}
	commit, _, err := wt.Head(e.Ctx)
	return commit, err
}

func redMessage(issue string, failing []string, changedFiles int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "test(#%s): red — %d failing\n\n", issue, len(failing))
	if len(failing) > 0 {
		b.WriteString("Failing by assertion, as git tdd red proved:\n")
		for _, id := range failing {
			fmt.Fprintf(&b, "  %s\n", id)
		}
	} else {
		fmt.Fprintf(&b, "The tests fail with %d changed test files.\n", changedFiles)
	}
	b.WriteString("\nTDD-Phase: red\n")
	for i, id := range failing {
		if i == maxTrailerIDs {
			fmt.Fprintf(&b, "TDD-Failing-More: %d\n", len(failing)-maxTrailerIDs)
			break
		}
		fmt.Fprintf(&b, "TDD-Failing: %s\n", id)
	}
	return b.String()
}
