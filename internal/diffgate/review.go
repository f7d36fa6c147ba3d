package diffgate

import (
	"errors"
	"fmt"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// ReviewCmd is the gate over the staged change.
type ReviewCmd struct {
	Auto    bool   `help:"Unattended run: never prompts, so the gate fails closed with exit 3 (also GIT_TDD_AUTO=1)."`
	Message string `short:"m" placeholder:"TEXT" help:"A note kept with the approval."`
	Branch  string `placeholder:"BRANCH" help:"Instead of the staged change, review moving BRANCH (or creating it) at the commit --to names (the way through --strict after a rebase, a cherry-pick or a pull)."`
	To      string `placeholder:"REV" help:"With --branch: the commit the branch is to move to."`
}

// ApprovePrompt is the seed's question.
const ApprovePrompt = "Type APPROVE to continue or REJECT to abort:"

var approveChoices = []term.Choice{{Word: "APPROVE"}, {Word: "REJECT"}}

// Run reviews the staged change, or moving a branch.
func (c *ReviewCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	auto := c.Auto || env.Getenv("GIT_TDD_AUTO") == "1"
	if c.Branch == "" && c.To == "" {
		t, cfg, err := staged(env, repo, env.GateConfig)
		if err != nil {
			return err
		}
		if repo.SignsCommits(env.Ctx) {
			return previewSigned(env, repo, t, cfg, auto)
		}
		return gate(env, repo, t, cfg, "review", auto, c.Message)
	}
	if c.Branch == "" || c.To == "" {
		return exitcode.New(exitcode.Usage, "--branch and --to go together")
	}
	t, err := moveTarget(env, repo, c.Branch, c.To)
	if err != nil {
		return err
	}
	if err := notGateCommit(env, repo, c.Branch, c.To); err != nil {
		return err
	}
	cfg, err := env.GateConfig(repo, "HEAD")
	if err != nil {
		return err
	}
	if err := gate(env, repo, t, cfg, "move", auto, c.Message); err != nil {
		return err
	}
	if t.BaseCommit == "" {
		fmt.Fprintf(env.Stdout, "Now create it, for example: git branch %s %s\n", c.Branch, c.To)
		return nil
	}
	fmt.Fprintf(env.Stdout, "Now move it, for example: git update-ref refs/heads/%s %s %s\n", c.Branch, c.To, t.BaseCommit)
	return nil
}

// notGateCommit refuses, before anyone reviews it, a move to a commit git tdd
// wrote as a gate: --strict never lets a branch move to one, approved or not.
func notGateCommit(env *cmdline.Env, repo *gitx.Repo, branch, rev string) error {
	found, err := repo.Commits(env.Ctx, rev)
	if err != nil {
		return err
	}
	if phase := commitmsg.Phase(found[rev].Message); phase != "" {
		return exitcode.New(exitcode.Refused, "%s is a git tdd gate commit (%s: %s): %s moves to it only through git tdd merge, whatever a review says",
			term.Line(rev, 80), commitmsg.PhaseKey, term.Line(phase, 40), branch).
			WithHint("merge its workflow with git tdd merge, which proves it again and asks for your approval")
	}
	return nil
}

// moveTarget is the change of moving branch to rev: the tree of rev against the
// branch's current tip, which the approval is bound to. A branch that does not
// exist is created: its approval is bound to no commit, as a first commit's
// is, and the change shown is rev against what HEAD shares with it (or
// everything, when nothing).
func moveTarget(env *cmdline.Env, repo *gitx.Repo, branch, rev string) (review.Target, error) {
	if err := repo.CheckBranchName(env.Ctx, branch); err != nil {
		return review.Target{}, exitcode.Wrap(exitcode.Usage, err)
	}
	tree, err := repo.TreeOf(env.Ctx, rev)
	if err != nil {
		return review.Target{}, exitcode.Wrap(exitcode.Usage, err)
	}
	old, ok, err := repo.RefValue(env.Ctx, "refs/heads/"+branch)
	if err != nil {
		return review.Target{}, err
	}
	if ok {
		return review.Target{Base: old, BaseCommit: old, Tree: tree}, nil
	}
	base, err := repo.MergeBase(env.Ctx, "HEAD", rev)
	if err != nil {
		if base, err = repo.EmptyTree(env.Ctx); err != nil {
			return review.Target{}, err
		}
	}
	return review.Target{Base: base, Tree: tree}, nil
}

// gate analyses a change, shows it on the terminal and asks for APPROVE. It
// records an approval bound to the tree and the commit it was reviewed on.
func gate(env *cmdline.Env, repo *gitx.Repo, t review.Target, cfg *config.Config, source string, auto bool, message string) error {
	_, err := approve(env, repo, t, cfg, source, auto, message)
	return err
}

// approve is gate, and returns the approval it recorded: nil when nothing
// was staged.
func approve(env *cmdline.Env, repo *gitx.Repo, t review.Target, cfg *config.Config, source string, auto bool, message string) (*state.Approval, error) {
	s, err := present(env, repo, t, cfg, source, auto)
	if s == nil || err != nil {
		return nil, err
	}
	defer s.tty.Close()
	fmt.Fprintln(s.tty.Writer())
	answer, err := s.tty.Choose(env.Ctx, ApprovePrompt, approveChoices)
	if errors.Is(err, term.ErrNoAnswer) {
		answer, err = "REJECT", nil
	}
	if err == nil && answer == "APPROVE" {
		answer, err = approveUnseen(env, s.tty, s.rep)
	}
	if err != nil {
		return nil, err
	}
	if answer != "APPROVE" {
		if err := review.Log(env.Ctx, s.store, t, s.rep, source, "rejected", ""); err != nil {
			return nil, err
		}
		return nil, exitcode.New(exitcode.Refused, "rejected: nothing was approved").
			WithHint("change what you need, stage it, and run git diffgate again")
	}
	a, err := review.Record(env.Ctx, s.store, t, s.rep, message, source)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stdout, "Approved tree %s on %s.\nA commit of exactly this content passes the gate; staging anything else needs a new review.\n",
		short(t.Tree), parentName(t.BaseCommit))
	return &a, nil
}

// shown is a review on the terminal, before its question.
type shown struct {
	rep   *analysis.Report
	store *state.Store
	tty   *term.TTY
}

// present analyses a change and shows it on the terminal: nil when nothing
// is staged (said on stdout). Without a terminal, or with --auto, it prints
// the summary and refuses (exit 3).
func present(env *cmdline.Env, repo *gitx.Repo, t review.Target, cfg *config.Config, source string, auto bool) (*shown, error) {
	rep, err := review.Analyze(env.Ctx, repo, t, review.Rules(cfg))
	if err != nil {
		return nil, err
	}
	if len(rep.Files) == 0 {
		fmt.Fprintln(env.Stdout, "Nothing staged: there is no change to review.")
		return nil, nil
	}
	store, _, err := env.State(repo) // a corrupt state file fails before a human spends time
	if err != nil {
		return nil, err
	}
	summary := &review.Printer{W: env.Stdout, P: env.StdoutPalette(), Width: term.Width(env.Stdout)}
	if auto {
		summary.Summary(rep)
		review.Log(env.Ctx, store, t, rep, source, "refused", "--auto")
		return nil, bypass("--auto cannot approve a change; a human must")
	}
	tty, err := term.OpenTTY(env.Color, env.Getenv, repo.CommonDir)
	if err != nil {
		summary.Summary(rep)
		if errors.Is(err, term.ErrPagedByGit) {
			review.Log(env.Ctx, store, t, rep, source, "refused", "under git's pager")
			return nil, bypass(err.Error())
		}
		if errors.Is(err, heldtty.ErrHeld) {
			review.Log(env.Ctx, store, t, rep, source, "refused", "a git tdd agent session holds the terminal")
			return nil, bypass(err.Error())
		}
		review.Log(env.Ctx, store, t, rep, source, "refused", "no terminal")
		return nil, bypass("there is no terminal to ask a human for approval")
	}
	screen := review.NewScreen(env.Ctx, repo, tty, env.NoPager, env.Getenv, env.Prog)
	// every file's diff, the flagged ones first: what is approved is all of it
	none := func(string) bool { return false }
	if err := screen.Present(rep, func(pr *review.Printer) error { return review.ShowAll(env.Ctx, repo, t, rep, pr, none) }); err != nil {
		tty.Close()
		return nil, err
	}
	return &shown{rep: rep, store: store, tty: tty}, nil
}

// approveUnseen asks for the files the review did not show, each on its
// own: "APPROVE" when every one was approved, else "REJECT".
func approveUnseen(env *cmdline.Env, tty *term.TTY, rep *analysis.Report) (string, error) {
	ok, err := review.ConfirmUnseen(env.Ctx, tty, rep)
	if err != nil || !ok {
		return "REJECT", err
	}
	return "APPROVE", nil
}

// staged finds the staged change while the configuration is read (by
// readConfig: the gate's, which falls back to the defaults, or the strict
// one): both are on the path of every commit.
func staged(env *cmdline.Env, repo *gitx.Repo, readConfig func(*gitx.Repo, string) (*config.Config, error)) (review.Target, *config.Config, error) {
	var cfg *config.Config
	var cerr error
	done := make(chan struct{})
	go func() {
		cfg, cerr = readConfig(repo, "HEAD")
		close(done)
	}()
	t, err := review.Staged(env.Ctx, repo)
	<-done
	if cerr != nil {
		return t, nil, cerr
	}
	return t, cfg, err
}

// bypass is the seed's refusal when no human can be asked.
func bypass(reason string) error {
	return exitcode.New(exitcode.HumanRequired, "%s", reason).
		WithDetail("Diff review gate cannot be bypassed. Manual approval required.").
		WithHint("a human must run, in a terminal:  git diffgate")
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func parentName(commit string) string {
	if commit == "" {
		return "no commit yet (the first commit)"
	}
	return "commit " + short(commit)
}
