package tdd

import (
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/tokens"
)

// StartCmd begins an issue's workflow.
type StartCmd struct {
	Issue   string        `arg:"" complete:"none" help:"The issue: a positive integer like 87, or a name [issue] pattern matches, like PROJ-12."`
	Base    string        `placeholder:"REV" help:"Where the branch starts: a branch, a tag or a commit (default: the current branch)."`
	Into    string        `placeholder:"BRANCH" help:"The local branch the merge lands on (default: --base when it is a local branch, else the current branch)."`
	LLD     string        `name:"lld" placeholder:"FILE" help:"The design document of the issue."`
	Context cmdline.Paths `placeholder:"PATH..." help:"Files an agent will be given as context, space-separated; checked like git tdd context."`
	Dir     string        `placeholder:"DIR" help:"Where to create the worktree (default: [worktree] dir, ../<repo>-issue-<issue>)."`
	Subject string        `placeholder:"TEXT" help:"The subject of the merge commit (default: the LLD's title)."`
	Again   bool          `help:"Start an issue whose earlier workflows were merged or aborted: a new workflow, listed beside them as <issue>-2, <issue>-3, ..."`
	From    string        `placeholder:"BACKUP" help:"Resume an aborted workflow from the backup abort printed (refs/tdd/backup/<issue>-<time>): its branch, its uncommitted files, its phase."`
	noSandbox
}

// Run creates the branch and the worktree and prints the worktree's path.
func (c *StartCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	c.apply(l, "tdd start", c.Issue)
	return l.Start(lifecycle.StartOptions{Issue: c.Issue, Base: c.Base, Into: c.Into, LLD: c.LLD, Context: c.Context, Dir: c.Dir, Subject: c.Subject,
		Again: c.Again, Resume: c.From, Count: tokens.Count})
}
