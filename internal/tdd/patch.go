package tdd

import (
	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/cmdline"
)

// PatchCmd applies FIND/REPLACE blocks (seed 003).
type PatchCmd struct {
	Path   string `arg:"" optional:"" help:"The file for blocks that name none."`
	From   string `placeholder:"FILE" help:"Read the blocks from FILE instead of standard input."`
	DryRun bool   `help:"Check that every block applies, and write nothing."`
	JSON   bool   `name:"json" help:"Report per block as JSON with stable codes."`
}

// Run applies the blocks, all or nothing.
func (c *PatchCmd) Run(env *cmdline.Env) error {
	a, err := applyEnv(env, "tdd patch")
	if err != nil {
		return err
	}
	data, err := input(env, c.From)
	if err != nil {
		return err
	}
	return a.Patch(apply.PatchOptions{Path: c.Path, Input: data, DryRun: c.DryRun, JSON: c.JSON})
}
