package tdd

import (
	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/cmdline"
)

// PatchCmd applies FIND/REPLACE blocks (seed 003), unified diffs and Codex
// patches.
type PatchCmd struct {
	Path   string `arg:"" optional:"" help:"The file for blocks that name none."`
	From   string `placeholder:"FILE" help:"Read the blocks from FILE instead of standard input."`
	Format string `enum:"auto,seed,aider,unified-diff,codex" default:"auto" help:"Read only this format: seed (FIND:/REPLACE WITH:), aider (SEARCH/REPLACE), unified-diff or codex (apply_patch). auto finds each where it starts."`
	DryRun bool   `help:"Check that every block applies, and write nothing."`
	JSON   bool   `name:"json" help:"Report per block as JSON with stable codes."`
	Auto   bool   `help:"Unattended run: a patch that needs a human's approval fails closed with exit 3 (also GIT_TDD_AUTO=1)."`
	Force  bool   `help:"Without a terminal, apply a patch that needs approval anyway (unless [write] allow_force = false). Audited."`
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
	return a.Patch(apply.PatchOptions{Path: c.Path, Format: c.Format, Input: data, DryRun: c.DryRun, JSON: c.JSON, Auto: c.Auto, Force: c.Force})
}
