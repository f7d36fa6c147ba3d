package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// GreenCmd is the green gate.
type GreenCmd struct {
	issueArg
	noSandbox
	JSON bool `name:"json" help:"Print the verdict as JSON on standard output."`
}

// Run proves the green and commits it.
func (c *GreenCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	l.JSON = c.JSON
	c.apply(l, "tdd green", c.Issue)
	return l.Green(c.Issue)
}
