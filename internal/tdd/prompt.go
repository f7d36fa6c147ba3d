package tdd

import (
	"fmt"
	"os"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/prompts"
)

// PromptCmd prints an agent's instructions for one file (seed 003).
type PromptCmd struct {
	Path   string   `arg:"" help:"The file to change or add."`
	Change string   `required:"" enum:"add,modify" help:"add: a new file; modify: an existing one."`
	LLD    string   `name:"lld" placeholder:"FILE" help:"The design document to include."`
	Tests  []string `placeholder:"PATH" help:"Test files to include."`
}

// Run prints the prompt: the whole file for new or small files, FIND/REPLACE
// blocks for large ones.
func (c *PromptCmd) Run(env *cmdline.Env) error {
	l, cfg, _, err := inForceEnv(env)
	if err != nil {
		return err
	}
	tree, err := fsafe.OpenTree(l.Repo.Top)
	if err != nil {
		return err
	}
	defer tree.Close()
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	rel, err := tree.Resolve(cwd, c.Path)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	existing, _, exists, err := tree.ReadFile(rel)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if c.Change == "modify" && !exists {
		return exitcode.New(exitcode.Usage, "%s does not exist: use --change add", rel)
	}
	req := prompts.Request{Path: rel, Change: c.Change, Existing: existing, MaxLines: cfg.Patch.LargeLines, MaxBytes: cfg.Patch.LargeBytes}
	var docs []string
	if c.LLD != "" {
		docs = append(docs, c.LLD)
	}
	docs = append(docs, c.Tests...)
	if len(docs) > 0 {
		res, err := checkContext(l.Repo.Top, docs, cfg)
		if err != nil {
			return err
		}
		for i, f := range res.Files {
			if i == 0 && c.LLD != "" {
				req.LLD = f.Content
				continue
			}
			req.Tests = append(req.Tests, prompts.File{Path: f.Path, Content: f.Content})
		}
	}
	text, strategy := prompts.Build(req)
	fmt.Fprintf(env.Stderr, "git-tdd: prompt for %s: %s\n", rel, describe(strategy))
	fmt.Fprint(env.Stdout, text)
	return nil
}

func describe(strategy string) string {
	if strategy == prompts.Diff {
		return "the file is large, so the agent is asked for FIND/REPLACE blocks"
	}
	return "the agent is asked for the whole file"
}
