package diffgate

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
)

// VerifyCmd checks the approval trailers of a range of commits, for CI.
type VerifyCmd struct {
	Range string `arg:"" optional:"" placeholder:"RANGE" help:"The commits to check (default @{upstream}..HEAD), e.g. origin/main..HEAD."`
}

var trailerValue = regexp.MustCompile(`\btree=([0-9a-f]{40,64})\b`)

// Run lists every commit on the range's first-parent chain whose Diffgate-Approved
// trailer does not name its own tree; exit 1 when there is one.
func (c *VerifyCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	spec := c.Range
	if spec == "" {
		spec = "@{upstream}..HEAD"
	}
	if strings.HasPrefix(spec, "-") {
		return exitcode.New(exitcode.Usage, "invalid range %q", spec)
	}
	commits, err := repo.FirstParentTrailers(env.Ctx, spec, TrailerKey)
	if err != nil {
		e := exitcode.With(exitcode.Usage, err)
		if c.Range == "" {
			e.WithHint("name the commits to check, e.g. git diffgate verify origin/main..HEAD")
		}
		return e
	}
	failed := 0
	for _, tc := range commits {
		if problem := verifyCommit(tc); problem != "" {
			failed++
			fmt.Fprintf(env.Stdout, "%s %s: %s\n", short(tc.ID), tc.Subject, problem)
		}
	}
	if failed > 0 {
		return exitcode.New(exitcode.Refused, "%d of %d commits in %s lack an approval of their own tree", failed, len(commits), spec).
			WithHint("a commit gets its trailer when it is approved with git diffgate before it is committed")
	}
	switch len(commits) {
	case 0:
		fmt.Fprintf(env.Stdout, "No commits in %s.\n", spec)
	case 1:
		fmt.Fprintf(env.Stdout, "The commit in %s carries an approval of its own tree.\n", spec)
	default:
		fmt.Fprintf(env.Stdout, "All %d commits in %s carry an approval of their own tree.\n", len(commits), spec)
	}
	return nil
}

// verifyCommit says what is wrong with a commit's trailers, or "".
func verifyCommit(c gitx.TrailedCommit) string {
	values := c.Trailers[TrailerKey]
	if len(values) == 0 {
		return "no " + TrailerKey + " trailer"
	}
	var named []string
	for _, v := range values {
		m := trailerValue.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		if m[1] == c.Tree {
			return ""
		}
		named = append(named, short(m[1]))
	}
	if len(named) == 0 {
		return "its " + TrailerKey + " trailer names no tree"
	}
	return fmt.Sprintf("its trailer approves tree %s, but the commit's tree is %s", strings.Join(named, ", "), short(c.Tree))
}
