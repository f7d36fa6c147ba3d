package tdd

import (
	"github.com/git-tdd/git-tdd/internal/apply"
	"github.com/git-tdd/git-tdd/internal/cmdline"
)

// WriteCmd writes a file the safe way (seed 001).
type WriteCmd struct {
	Path     string `arg:"" help:"The file to write, inside the working tree."`
	From     string `placeholder:"FILE" help:"Read the new content from FILE instead of standard input."`
	Strategy string `enum:",append,insert,extend,replace" default:"" help:"How to combine with an existing file: append, insert, extend or replace (a file that needs approval still asks a human to confirm)."`
	Line     int    `placeholder:"N" help:"With --strategy insert: insert before line N."`
	Auto     bool   `help:"Unattended: a file that needs approval is refused with exit 3 (also GIT_TDD_AUTO=1)."`
	Force    bool   `help:"Without a human, replace a file that needs approval anyway (unless [write] allow_force = false)."`
}

// Run writes.
func (c *WriteCmd) Run(env *cmdline.Env) error {
	a, err := applyEnv(env, "tdd write")
	if err != nil {
		return err
	}
	data, err := input(env, c.From)
	if err != nil {
		return err
	}
	return a.Write(apply.WriteOptions{Path: c.Path, Content: data, Strategy: c.Strategy, Line: c.Line, Auto: c.Auto, Force: c.Force})
}
