package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// checkCwd refuses to run in a directory that no longer exists, as a shell
// left in a worktree that git tdd merge or abort removed is: the process
// cannot name it (getwd fails), nor can git. It says what the directory was
// and where the main checkout is, when the repository it belonged to can be
// found. -C with an absolute path does not need it.
func (e *Env) checkCwd() error {
	if e.Globals != nil && filepath.IsAbs(e.Directory) {
		return nil
	}
	_, err := os.Getwd()
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return exitcode.New(exitcode.Usage, "cannot read the current directory: %v", err)
	}
	// the shell's $PWD names the directory the process was started in, when
	// the shell went there itself: only a path that is gone is taken for it
	pwd := e.Getenv("PWD")
	if pwd == "" || !filepath.IsAbs(pwd) {
		return exitcode.New(exitcode.Usage, "the current directory no longer exists").
			WithHint("cd to a checkout of the repository, then run the command again")
	}
	pwd = filepath.Clean(pwd)
	if _, err := os.Lstat(pwd); err == nil {
		return exitcode.New(exitcode.Usage, "the current directory no longer exists").
			WithHint("cd to a checkout of the repository, then run the command again")
	}
	main, w := removedWorktree(e.Ctx, pwd)
	if main == "" {
		return exitcode.New(exitcode.Usage, "the current directory %s no longer exists", term.Path(pwd)).
			WithHint("cd to a checkout of the repository, then run the command again (a worktree that git tdd merge or abort removed is gone with its files)")
	}
	return exitcode.New(exitcode.Usage, "the worktree %s is gone%s; the main checkout is %s", term.Path(pwd), howGone(w), term.Path(main)).
		WithHint("cd %s", term.Path(main))
}

// howGone says which workflow's worktree it was, and what removed it.
func howGone(w *state.Workflow) string {
	if w == nil {
		return ""
	}
	issue := term.Line(w.Issue, 64)
	switch w.Phase {
	case state.PhaseMerged:
		return fmt.Sprintf(": git tdd merge removed it when it merged #%s", issue)
	case state.PhaseAborted:
		return fmt.Sprintf(": git tdd abort removed it when it aborted #%s", issue)
	}
	return fmt.Sprintf(": it was the worktree of #%s", issue)
}

// issueSuffix is the end of a worktree's name as [worktree] dir names it by
// default ("../{repo}-issue-{issue}").
var issueSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-issue-[^/]+$`)
})

// maxSiblings bounds the directories looked into for the repository a removed
// worktree belonged to.
const maxSiblings = 256

// removedWorktree finds the repository whose git tdd state records the
// directory dir (which no longer exists) as a workflow's worktree: its main
// checkout and the workflow. It looks where worktrees are made: beside the
// checkout under the default name, around the nearest directory that still
// exists, and in the directories beside it.
func removedWorktree(ctx context.Context, dir string) (string, *state.Workflow) {
	near := filepath.Dir(dir)
	for {
		if fi, err := os.Stat(near); err == nil && fi.IsDir() {
			break
		}
		if next := filepath.Dir(near); next != near {
			near = next
			continue
		}
		return "", nil
	}
	candidates := []string{issueSuffix().ReplaceAllString(dir, ""), near}
	if entries, err := os.ReadDir(near); err == nil {
		for i, en := range entries {
			if i == maxSiblings {
				break
			}
			if en.IsDir() {
				candidates = append(candidates, filepath.Join(near, en.Name()))
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		if _, err := os.Lstat(filepath.Join(c, ".git")); err != nil && c != near {
			continue
		}
		r, err := gitx.OpenDiscovered(ctx, c)
		if err != nil || seen[r.CommonDir] {
			continue
		}
		seen[r.CommonDir] = true
		if w := workflowAt(r, dir); w != nil {
			return mainCheckout(ctx, r), w
		}
		// a worktree deleted without git: git still lists it, as prunable
		if wts, err := r.Worktrees(ctx); err == nil {
			for _, wt := range wts {
				if samePath(wt.Path, dir) {
					return mainCheckout(ctx, r), nil
				}
			}
		}
	}
	return "", nil
}

// workflowAt is the workflow of r's state whose worktree is dir.
func workflowAt(r *gitx.Repo, dir string) *state.Workflow {
	st, err := state.New(r.CommonDir).Load()
	if err != nil {
		return nil
	}
	for _, w := range st.Workflows {
		if w.Worktree != "" && samePath(w.Worktree, dir) {
			return w
		}
	}
	return nil
}

// samePath compares two paths of which the last parts may no longer exist:
// as written, and with the symbolic links of what exists resolved.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	return a == b || resolved(a) == resolved(b)
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolved(parent), filepath.Base(p))
}

// mainCheckout is the first working tree git lists for r: the main one; r's
// own when git cannot say.
func mainCheckout(ctx context.Context, r *gitx.Repo) string {
	if wts, err := r.Worktrees(ctx); err == nil && len(wts) > 0 && !wts[0].Bare {
		return wts[0].Path
	}
	return r.Top
}
