package tdd

import "github.com/git-tdd/git-tdd/internal/cmdline"

// MergeCmd merges a green workflow after a human approves.
type MergeCmd struct {
	issueArg
	noSandbox
	Auto bool `help:"Unattended run: never prompts, so the merge fails closed with exit 3 (also GIT_TDD_AUTO=1)."`
	JSON bool `name:"json" help:"Print the outcome as JSON on standard output."`
}

// Run reviews and merges.
func (c *MergeCmd) Run(env *cmdline.Env) error {
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	l.JSON = c.JSON
	c.apply(l, "tdd merge", c.Issue)
	return l.Merge(c.Issue, c.Auto)
}
