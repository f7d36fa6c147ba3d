package tdd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/issueflow"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// IssueResumeCmd continues a workflow where it stopped.
type IssueResumeCmd struct {
	Slug string `arg:"" help:"The workflow's name (git tdd issue list shows them)."`
	Auto bool   `help:"Never ask a human: exit 3 at once (also GIT_TDD_AUTO=1)."`
	// NoSandbox is the human's word only: no file or variable sets it.
	NoSandbox bool `name:"no-sandbox" help:"Run the drafter and reviewer without the sandbox, where this machine cannot confine them (warned each call, recorded in the audit log)."`
}

// Run resumes in the working tree that holds the workflow's folder.
func (c *IssueResumeCmd) Run(env *cmdline.Env) error {
	if err := issueflow.CheckSlug(c.Slug); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	st, err := state.New(repo.CommonDir).Load()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	dir := ""
	if d := st.Issues[c.Slug]; d != nil {
		if d.Done() { // nothing is left to ask anyone
			fmt.Fprintln(env.Stdout, issueflow.DoneMessage(d))
			return nil
		}
		if dir, err = knownWorktree(env, repo, d.Worktree); err != nil {
			return err
		}
	} else if _, err := os.Lstat(filepath.Join(repo.Top, filepath.FromSlash(issueflow.ActiveDir), c.Slug)); err != nil {
		return exitcode.New(exitcode.Usage, "no issue workflow %q: %s/%s does not exist", c.Slug, issueflow.ActiveDir, c.Slug).
			WithHint("git tdd issue list shows the workflows; git tdd issue new <brief.md> starts one")
	}
	f, done, err := issueFlow(env, dir, c.Slug, c.Auto, c.NoSandbox)
	if err != nil {
		return err
	}
	defer done()
	return f.Resume(c.Slug)
}

// knownWorktree checks that the workflow is in this working tree: state.toml
// is only a cache anyone could edit, so a workflow is never followed into
// another working tree (with another HEAD, and another review prompt) unseen.
func knownWorktree(env *cmdline.Env, repo *gitx.Repo, dir string) (string, error) {
	if dir == "" || fsafe.SamePath(dir, repo.Top) {
		return "", nil
	}
	return "", exitcode.New(exitcode.Usage, "this workflow's folder is in the working tree %s, not this one", term.Path(dir)).
		WithHint("cd %s and run git tdd issue resume there", term.ShellQuote(dir))
}
