package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// RedCmd is the red gate.
type RedCmd struct{ issueArg }

// Run proves the red and commits it.
func (c *RedCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.Red(c.Issue)
}
