package diffgate

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/hooks"
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
	if err := printHooks(env, repo); err != nil {
		return err
	}
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

// printHooks says which of our hooks are installed, and in which mode.
func printHooks(env *cmdline.Env, repo *gitx.Repo) error {
	dir, err := repo.HooksDir(env.Ctx)
	if err != nil {
		return err
	}
	states, err := hooks.Inspect(dir)
	if err != nil {
		return err
	}
	var ours, missing, others []string
	strict := false
	for _, h := range states {
		switch {
		case h.Ours:
			ours = append(ours, h.Hook)
			strict = strict || h.Hook == hooks.Strict
		case h.Hook == hooks.Strict:
		case h.Other:
			others = append(others, h.Hook)
		default:
			missing = append(missing, h.Hook)
		}
	}
	w := env.Stdout
	switch {
	case len(ours) == 0:
		fmt.Fprintf(w, "hooks:        not installed in %s; run 'git diffgate install'\n", dir)
	case len(missing)+len(others) > 0:
		fmt.Fprintf(w, "hooks:        incomplete in %s: missing %s; run 'git diffgate install'\n", dir, strings.Join(append(missing, others...), ", "))
	case strict:
		fmt.Fprintf(w, "hooks:        installed in %s (strict)\n", dir)
	default:
		fmt.Fprintf(w, "hooks:        installed in %s\n", dir)
	}
	for _, h := range states {
		if h.Chained && h.Ours {
			fmt.Fprintf(w, "              your %s hook runs first (%s%s)\n", h.Hook, h.Hook, hooks.SavedSuffix)
		}
	}
	return nil
}
