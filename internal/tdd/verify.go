package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// VerifyCmd re-proves the git tdd merges of a range, for CI.
type VerifyCmd struct {
	Range string `arg:"" optional:"" placeholder:"RANGE" help:"The commits to check (default @{upstream}..HEAD), e.g. origin/main..HEAD."`
	All   bool   `help:"Every commit of the range's first-parent chain must be a git tdd merge, re-proved."`
	JSON  bool   `name:"json" help:"Print the result as JSON."`
	noSandbox
}

// Run re-proves every git tdd merge in the range.
func (c *VerifyCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	c.apply(l, "tdd verify", "")
	return l.Verify(c.Range, c.All, c.JSON)
}
