package tdd

import (
	"fmt"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/cmdline"
)

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
	if err := l.ShowStatus(c.Issue, c.JSON); err != nil || c.JSON {
		return err
	}
	fmt.Fprintf(env.Stdout, "sandbox: %s\n", agentbox.StatusLine())
	return nil
}
