package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// StatusCmd shows one workflow.
type StatusCmd struct {
	issueArg
	JSON bool `name:"json" help:"Print it as JSON."`
}

// Run prints the workflow.
func (c *StatusCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.ShowStatus(c.Issue, c.JSON)
}
