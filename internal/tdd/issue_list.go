package tdd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/issueflow"
	"github.com/git-tdd/git-tdd/internal/term"
)

// IssueListCmd lists the issue workflows.
type IssueListCmd struct {
	JSON bool `name:"json" help:"Print them as a JSON array."`
}

// Run prints each workflow: where it stands, its counts and its folder.
func (c *IssueListCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	_, st, err := env.State(repo)
	if err != nil {
		return err
	}
	tree, err := fsafe.OpenTree(repo.Top, repo.GitDir, repo.CommonDir)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	defer tree.Close()
	list := issueflow.List(st, repo.Top, tree)
	if c.JSON {
		if list == nil {
			list = []issueflow.Summary{}
		}
		out, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s\n", out)
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "no issue workflows; start one with git tdd issue new <brief.md>")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLUG\tWHERE\tDRAFTS\tVERDICTS\tFOLDER")
	for _, s := range list {
		// the slug and the step come from state.toml and from the names of
		// folders in the working tree: anything running as the user makes those
		where := term.Line(s.Step, 40)
		if s.Number > 0 {
			where = fmt.Sprintf("%s: #%d", where, s.Number)
		}
		if !s.InState {
			where += " (not in state.toml)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", term.Path(s.Slug), where, s.Drafts, s.Verdicts, term.Path(s.Dir))
	}
	return tw.Flush()
}
