package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// AbortCmd discards a workflow, keeping a backup.
type AbortCmd struct {
	issueArg
	Force bool `help:"Discard unmerged commits and uncommitted work without asking (they are still saved under refs/tdd/backup/)."`
}

// Run removes the worktree and the branch.
func (c *AbortCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.Abort(c.Issue, c.Force)
}
