package diffgate

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/term"
)

// StatusCmd shows the approval state of the staged change.
type StatusCmd struct{}

// Run prints the staged tree and its approval.
func (c *StatusCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	t, err := review.Staged(env.Ctx, repo)
	if err != nil {
		return err
	}
	_, st, err := env.State(repo)
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "staged tree:  %s on %s\n", t.Tree, parentName(t.BaseCommit))
	if t.BaseCommit != "" {
		if headTree, err := repo.TreeOf(env.Ctx, t.BaseCommit); err == nil && headTree == t.Tree {
			fmt.Fprintln(w, "approval:     nothing staged")
			return nil
		}
	}
	a := st.FindApproval(t.Tree, t.BaseCommit)
	if a == nil {
		fmt.Fprintln(w, "approval:     none; run 'git diffgate' in a terminal to review the staged change")
		return nil
	}
	fmt.Fprintf(w, "approval:     approved %s by %s\n", a.Time.Local().Format(time.RFC3339), a.By)
	if len(a.Flagged) > 0 {
		names := make([]string, len(a.Flagged))
		for i, p := range a.Flagged {
			names[i] = term.Path(p)
		}
		fmt.Fprintf(w, "flagged:      %s\n", strings.Join(names, ", "))
	}
	if a.Message != "" {
		fmt.Fprintf(w, "message:      %s\n", term.Line(a.Message, 200))
	}
	fmt.Fprintln(w, "              a commit of exactly this tree on this parent passes the gate")
	return nil
}
