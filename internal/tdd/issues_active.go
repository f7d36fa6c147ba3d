package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// IssuesCmd lists the active workflows' issues, one a line: shell completion
// runs it (completion.IssuesCommand).
type IssuesCmd struct{}

// Run prints them.
func (c *IssuesCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.ActiveIssues()
}
