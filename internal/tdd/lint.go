package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// LintCmd runs the lint command.
type LintCmd struct {
	issueArg
	noSandbox
}

// Run runs [lint] command in the worktree.
func (c *LintCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	c.apply(l, "tdd lint", c.Issue)
	return l.Lint(c.Issue)
}
