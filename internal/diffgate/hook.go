package diffgate

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/hooks"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/state"
)

// HookCmd is what the shims run: git diffgate hook <name> [args].
type HookCmd struct {
	Name string   `arg:"" help:"The hook git is running."`
	Args []string `arg:"" optional:"" passthrough:"" help:"The hook's arguments."`
}

// TrailerKey is the trailer that records an approval in a commit message.
const TrailerKey = review.TrailerKey

// Run dispatches to the hook (when run through the command line, for -h).
func (c *HookCmd) Run(env *cmdline.Env) error {
	return runHook(env, append([]string{c.Name}, c.Args...))
}

// runHook is what the shims run, without the command-line model: git diffgate
// hook <name> [args]. Git runs hooks at the top of the working tree.
func runHook(env *cmdline.Env, args []string) error {
	if len(args) == 0 {
		return exitcode.New(exitcode.Usage, "usage: git diffgate hook <name> [args]")
	}
	repo, err := gitx.OpenTop(env.Ctx)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	c := HookCmd{Name: args[0], Args: args[1:]}
	switch c.Name {
	case "pre-commit", "pre-merge-commit":
		return hookGate(env, repo, c.Name)
	case "prepare-commit-msg", hooks.Gating:
		if len(c.Args) == 0 {
			return exitcode.New(exitcode.Usage, "prepare-commit-msg: no message file")
		}
		if err := refuseForeignSigner(env, repo); err != nil {
			return err
		}
		return hookTrailer(env, repo, c.Args[0], c.Args[1:], c.Name == hooks.Gating)
	case "post-commit", "post-merge":
		return hookConsume(env, repo)
	case "reference-transaction":
		if len(c.Args) == 0 || c.Args[0] != "prepared" {
			return nil
		}
		return hookRefs(env, repo, env.Stdin)
	}
	return exitcode.New(exitcode.Usage, "unknown hook %q", c.Name)
}

// exempt reports whether HEAD is on the branch of an active git tdd workflow,
// where the git tdd gates apply and git tdd merge reviews the whole branch.
func exempt(env *cmdline.Env, repo *gitx.Repo, st *state.State) (bool, error) {
	active := st.ActiveBranches()
	if len(active) == 0 {
		return false, nil
	}
	branch, err := repo.Branch(env.Ctx)
	return active[branch], err
}

// stagedToGate is the state and the staged change a commit hook judges; a nil
// state means the branch is exempt (an active git tdd workflow's).
func stagedToGate(env *cmdline.Env, repo *gitx.Repo) (*state.State, review.Target, error) {
	_, st, err := env.State(repo)
	if err != nil {
		return nil, review.Target{}, err
	}
	if ex, err := exempt(env, repo, st); ex || err != nil {
		return nil, review.Target{}, err
	}
	t, err := review.Staged(env.Ctx, repo)
	if err != nil {
		return nil, review.Target{}, err
	}
	return st, t, nil
}

// hookGate passes at once when the index tree has an approval on HEAD; otherwise
// it runs the review inline on the terminal, and refuses without one. A
// signed commit's review is prepare-commit-msg's (signedTrailer).
func hookGate(env *cmdline.Env, repo *gitx.Repo, name string) error {
	st, t, err := stagedToGate(env, repo)
	if st == nil || err != nil {
		return err
	}
	if intentOfCommit(env, repo).signed {
		return nil
	}
	if st.FindApproval(t.Tree, t.BaseCommit) != nil {
		return nil
	}
	return gateStaged(env, repo, t, name)
}

// gateStaged runs the review of the staged change inline on the terminal.
func gateStaged(env *cmdline.Env, repo *gitx.Repo, t review.Target, name string) error {
	cfg, err := env.GateConfig(repo, "HEAD")
	if err != nil {
		return err
	}
	return gate(env, repo, t, cfg, name, env.Getenv("GIT_TDD_AUTO") == "1", "")
}

// reloadState reads the state again, with the approval a review just recorded.
func reloadState(env *cmdline.Env, repo *gitx.Repo) (*state.State, error) {
	_, st, err := env.State(repo)
	return st, err
}

// sequencing reports whether a rebase, cherry-pick or revert is making the
// commit: it goes onto a detached HEAD or a branch whose move is judged, and a
// rebase would otherwise ask for every commit it replays.
func sequencing(repo *gitx.Repo) bool {
	switch repo.InProgress() {
	case "rebase", "rebase or am", "cherry-pick", "revert":
		return true
	}
	return false
}

// trailerTree finds the tree a Diffgate-Approved trailer line names.
var trailerTree = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + TrailerKey + `:[^\n]*\btree=([0-9a-f]+)[^\n]*\n?`)
})

// hookTrailer adds the approval trailer to the commit message: for -m, templates,
// --amend and merges alike, never twice. A trailer that names another tree (from
// an amended, rebased or cherry-picked message) is dropped: it is no longer true.
// With gating (--strict), a change without an approval first goes through the
// review, as pre-commit's would, unless a rebase, cherry-pick or revert is
// making it: those land when their branch moves, which reference-transaction
// judges. A signed commit takes no approval from state.toml: signedTrailer.
// source is the hook's other arguments (where the message comes from).
func hookTrailer(env *cmdline.Env, repo *gitx.Repo, msgFile string, source []string, gating bool) error {
	st, t, err := stagedToGate(env, repo)
	if st == nil || err != nil {
		return err
	}
	if ci := intentOfCommit(env, repo); ci.signed {
		return signedTrailer(env, repo, msgFile, source, t, ci, gating)
	}
	if err := dropStaleTrailers(msgFile, t.Tree); err != nil {
		return err
	}
	if a := st.FindApproval(t.Tree, t.BaseCommit); a != nil {
		return repo.AddTrailer(env.Ctx, msgFile, review.Trailer(a.Time, t.Tree))
	}
	var head gitx.CommitHeader
	if t.BaseCommit != "" {
		commits, err := repo.Commits(env.Ctx, t.BaseCommit)
		if err != nil {
			return err
		}
		head = commits[t.BaseCommit]
	}
	if head.Tree != t.Tree || t.BaseCommit == "" {
		if !gating || sequencing(repo) {
			return nil
		}
		if err := gateStaged(env, repo, t, "prepare-commit-msg"); err != nil {
			return err
		}
		if st, err = reloadState(env, repo); err != nil {
			return err
		}
		if a := st.FindApproval(t.Tree, t.BaseCommit); a != nil {
			return repo.AddTrailer(env.Ctx, msgFile, review.Trailer(a.Time, t.Tree))
		}
		return nil
	}
	// Unchanged content (a message-only --amend, an empty commit): the approval
	// of HEAD's tree carries over, when HEAD holds one as verify reads it (in
	// its final trailer block, one, well formed, not a git tdd gate commit),
	// written anew rather than copied.
	if approvalProblem(t.Tree, head.Message) == "" {
		a, _ := commitmsg.ParseApproval(head.Message)
		return repo.AddTrailer(env.Ctx, msgFile, review.Trailer(a.Time, t.Tree))
	}
	if at, ok := st.ReviewedAt(t.BaseCommit); ok {
		return repo.AddTrailer(env.Ctx, msgFile, review.Trailer(at, t.Tree))
	}
	return nil
}

// dropStaleTrailers removes the trailers that name another tree, and ends the
// message with a newline: git merge writes MERGE_MSG without one, and
// interpret-trailers would then add the trailer to the subject's paragraph.
func dropStaleTrailers(path, tree string) error {
	msg, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := trailerTree().ReplaceAllFunc(msg, func(line []byte) []byte {
		if m := trailerTree().FindSubmatch(line); m != nil && string(m[1]) == tree {
			return line
		}
		return nil
	})
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if bytes.Equal(out, msg) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

// hookConsume runs after a commit or merge: the approval of the new commit's tree
// becomes a record that this commit was reviewed, and cannot be used again.
func hookConsume(env *cmdline.Env, repo *gitx.Repo) error {
	store, st, err := env.State(repo)
	if err != nil || len(st.Approvals) == 0 {
		return err // most commits: nothing to consume, and no git call made
	}
	// The approval was made on what HEAD was before: the first parent, or for
	// --amend the commit it replaced, which the reflog remembers.
	found, err := repo.Commits(env.Ctx, "HEAD", "HEAD@{1}")
	if err != nil {
		return err
	}
	head, ok := found["HEAD"]
	if !ok {
		return nil
	}
	warnTreeChanged(env, head)
	parents := append([]string{}, head.Parents...)
	if prev, ok := found["HEAD@{1}"]; ok {
		parents = append([]string{prev.ID}, parents...)
	}
	if len(head.Parents) == 0 {
		parents = append(parents, "")
	}
	if !hasApproval(st, head.Tree, parents) {
		return nil
	}
	return store.Update(env.Ctx, func(st *state.State) error {
		st.Consume(head.ID, head.Tree, parents)
		return nil
	})
}

func hasApproval(st *state.State, tree string, parents []string) bool {
	for _, p := range parents {
		if st.FindApproval(tree, p) != nil {
			return true
		}
	}
	return false
}

// readAll reads the hook's stdin.
func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(r)
}
