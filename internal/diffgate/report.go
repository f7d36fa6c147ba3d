package diffgate

import (
	"fmt"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/term"
)

// ReportCmd prints the analysis without asking anything.
type ReportCmd struct {
	JSON  bool   `name:"json" help:"Print the analysis as JSON with stable field names."`
	Range string `placeholder:"A..B" help:"Analyse git diff A...B (B against its merge base with A) instead of the staged change."`
}

// Run prints the report; exit 1 when anything is flagged.
func (c *ReportCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	t, cfg, err := staged(env, repo, env.Config)
	if err != nil {
		return err
	}
	if c.Range != "" {
		if t, err = review.Range(env.Ctx, repo, c.Range); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	rep, err := review.Analyze(env.Ctx, repo, t, review.Rules(cfg))
	if err != nil {
		return err
	}
	switch {
	case c.JSON:
		if err := rep.WriteJSON(env.Stdout); err != nil {
			return err
		}
	case len(rep.Files) == 0:
		fmt.Fprintln(env.Stdout, "Nothing to review: no change.")
	default:
		(&review.Printer{W: env.Stdout, P: env.StdoutPalette(), Width: term.Width(env.Stdout)}).Summary(rep)
	}
	if len(rep.Flagged) > 0 {
		return exitcode.Silent(exitcode.Refused)
	}
	return nil
}
