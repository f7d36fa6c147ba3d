package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// GreenCmd is the green gate.
type GreenCmd struct{ issueArg }

// Run proves the green and commits it.
func (c *GreenCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.Green(c.Issue)
}
