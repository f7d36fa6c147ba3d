package tdd

import (
	"fmt"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/term"
)

// PromptCmd prints an agent's instructions for one file (seed 003).
type PromptCmd struct {
	Path   string        `arg:"" help:"The file to change or add."`
	Change string        `required:"" enum:"add,modify" help:"add: a new file; modify: an existing one."`
	LLD    string        `name:"lld" placeholder:"FILE" help:"The design document to include."`
	Tests  cmdline.Paths `placeholder:"PATH..." help:"Test files to include, space-separated."`
}

// Run prints the prompt: the whole file for new or small files, FIND/REPLACE
// blocks for large ones. Everything it includes, the file to modify too, passes
// the context checks first.
func (c *PromptCmd) Run(env *cmdline.Env) error {
	boundMemory()
	l, cfg, _, err := inForceEnv(env)
	if err != nil {
		return err
	}
	tree, err := fsafe.OpenTree(l.Repo.Top, l.Repo.GitDir, l.Repo.CommonDir)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	defer tree.Close()
	rel, err := tree.Resolve(l.Cwd, c.Path)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	var docs []string
	if c.Change == "modify" {
		if _, err := tree.Stat(rel); err != nil {
			return exitcode.New(exitcode.Usage, "%s does not exist: use --change add", term.Path(rel))
		}
		docs = append(docs, c.Path)
	}
	if c.LLD != "" {
		docs = append(docs, c.LLD)
	}
	docs = append(docs, c.Tests...)
	req := prompts.Request{Path: rel, Change: c.Change, MaxLines: cfg.Patch.LargeLines, MaxBytes: cfg.Patch.LargeBytes}
	if len(docs) > 0 {
		res, err := checkContext(l, docs, cfg)
		if err != nil {
			return err
		}
		byPath := map[string]string{}
		for _, f := range res.Files {
			byPath[f.Path] = f.Content
		}
		relOf := func(p string) string { r, _ := tree.Resolve(l.Cwd, p); return r }
		if c.Change == "modify" {
			req.Existing = []byte(byPath[rel])
		}
		if c.LLD != "" {
			req.LLD = byPath[relOf(c.LLD)]
		}
		for _, t := range c.Tests {
			r := relOf(t)
			req.Tests = append(req.Tests, prompts.File{Path: r, Content: byPath[r]})
		}
	}
	text, strategy := prompts.Build(req)
	fmt.Fprintf(env.Stderr, "git-tdd: prompt for %s: %s\n", term.Path(rel), describe(strategy))
	fmt.Fprint(env.Stdout, text)
	return nil
}

func describe(strategy string) string {
	if strategy == prompts.Diff {
		return "the file is large, so the agent is asked for FIND/REPLACE blocks"
	}
	return "the agent is asked for the whole file"
}
