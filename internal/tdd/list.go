package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// ListCmd shows every workflow.
type ListCmd struct {
	JSON bool `name:"json" help:"Print them as a JSON array."`
}

// Run prints the workflows.
func (c *ListCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.List(c.JSON)
}
