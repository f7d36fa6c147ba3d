package tdd

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/manpage"
)

// ManPage writes git-tdd(1).
func ManPage(w io.Writer) error {
	k, err := app().Parser()
	if err != nil {
		return err
	}
	return manpage.Render(w, manpage.Page{
		Name: "git-tdd", Usage: "git tdd", Title: "an issue-anchored TDD lifecycle that git enforces",
		Version: "git-tdd toolkit", Model: k.Model,
		Synopsis:    []string{"git tdd <command> [flags]"},
		Description: description,
		Sections: []manpage.Section{
			{Title: "EXIT STATUS", Body: manpage.Table(exitcode.Table)},
			{Title: "FILES", Body: `.git-tdd.toml at the top of the repository configures the test command, the worktrees, the thresholds and the agent; every key is optional and an unknown key is an error naming the file and line.

$(git rev-parse --git-common-dir)/tdd/state.toml holds the workflows by issue, shared by every worktree; $(git rev-parse --git-common-dir)/tdd/audit.jsonl logs every operation that changed, or refused to change, something.`},
			{Title: "SEE ALSO", Body: "git-diffgate(1), git-worktree(1)"},
		},
	})
}
