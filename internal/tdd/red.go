package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// RedCmd is the red gate.
type RedCmd struct {
	issueArg
	noSandbox
	JSON bool `name:"json" help:"Print the verdict as JSON on standard output."`
}

// Run proves the red and commits it.
func (c *RedCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	l.JSON = c.JSON
	c.apply(l, "tdd red", c.Issue)
	return l.Red(c.Issue)
}
