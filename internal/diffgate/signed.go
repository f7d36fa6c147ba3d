package diffgate

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/invocation"
	"github.com/git-tdd/git-tdd/internal/review"
)

// A signed commit is the only proof CI has that a human approved it (git
// diffgate verify with allowed_signers), so the human's key goes only on a
// tree that human approved in the same git commit: an approval in
// state.toml, which anything running as the user can write (move its tree
// to a backdoor's), never leads to a signed one. The hooks then leave the
// review to prepare-commit-msg, which shows the change on the terminal,
// asks, and writes the trailer of the tree it showed, in one process; git
// has fixed the commit's tree before that hook runs (it reads the index
// once, after pre-commit), so the trailer names the tree git commits unless
// something changes the index file in between, and then verify refuses the
// commit (and post-commit says so).

// commitIntent is what the hooks know of the commit git is making.
type commitIntent struct {
	// signed: the commit will be signed, or may be (what could not be
	// read for certain counts as signed).
	signed bool
	// known: git's command line was read for certain (an alias in it from
	// a configuration that did not change since git started), and amend
	// and noVerify say what it asks.
	known bool
	// amend: git commit --amend.
	amend bool
	// noVerify: git commit --no-verify or git merge --no-verify.
	noVerify bool
}

// intentOfCommit reads the command line of the git that runs the hook, and,
// when it does not decide, the configuration (commit.gpgSign, aliases). A
// configuration file changed since git started (git read it then, this hook
// reads it now) makes what was read from it unsure: signed.
func intentOfCommit(env *cmdline.Env, repo *gitx.Repo) commitIntent {
	unsure := commitIntent{signed: true}
	g, ok := invocation.Parent()
	if !ok {
		return unsure
	}
	var list gitx.ConfigList
	var listErr error
	loaded := false
	config := func() (gitx.ConfigList, error) {
		if !loaded {
			loaded = true
			list, listErr = repo.ConfigList(env.Ctx)
		}
		return list, listErr
	}
	changed := sync.OnceValue(func() bool {
		l, err := config()
		return err != nil || invocation.ChangedSince(repo.ConfigFiles(l), g.Start, repo.GitDir, repo.CommonDir)
	})
	alias := func(name string) (string, bool) {
		l, err := config()
		if err != nil {
			return "", false
		}
		e, ok := l.Get("alias." + strings.ToLower(name))
		return e.Value, ok && e.HasValue
	}
	in := invocation.Parse(g.Argv, alias)
	if !in.Known || in.Aliased && changed() {
		return unsure
	}
	ci := commitIntent{known: true, amend: in.Amend, noVerify: in.NoVerify}
	switch {
	case in.Sign > 0:
		ci.signed = true
	case in.Sign < 0:
		ci.signed = false
	case !loaded && !repo.ConfigMaySign():
		// nothing mentions commit.gpgSign: unset, unless a file of the
		// configuration changed since git read it (this reads them first)
		ci.signed = invocation.ChangedSince(repo.ConfigFiles(nil), g.Start, repo.GitDir, repo.CommonDir)
	default:
		l, err := config()
		ci.signed = err != nil || l.Bool("commit.gpgsign") || changed()
	}
	return ci
}

// signedTrailer is prepare-commit-msg for a signed commit: every approval
// trailer the message brings goes (it comes from a file, a commit or a
// template, none of which this commit's review wrote), and the change is
// reviewed here, on the terminal, in this process; the trailer names the
// tree the human approved. With --no-verify (default hooks) and in a
// rebase, cherry-pick or revert nothing is asked and no trailer written:
// the commit is signed without an approval, which verify refuses.
func signedTrailer(env *cmdline.Env, repo *gitx.Repo, msgFile string, source []string, t review.Target, ci commitIntent, gating bool) error {
	if err := dropApprovalTrailers(msgFile); err != nil {
		return err
	}
	if sequencing(repo) || ci.known && ci.noVerify && !gating {
		return nil
	}
	t, err := signedTarget(env, repo, t, ci, source)
	if err != nil {
		return err
	}
	cfg, err := env.GateConfig(repo, "HEAD")
	if err != nil {
		return err
	}
	a, err := approve(env, repo, t, cfg, "prepare-commit-msg", env.Getenv("GIT_TDD_AUTO") == "1", "")
	var e *exitcode.Error
	if errors.As(err, &e) && e.Code == exitcode.HumanRequired {
		e.Hint = "a human must run git commit in a terminal: a signed commit is approved there, whatever git diffgate recorded"
	}
	if a == nil || err != nil {
		return err
	}
	return repo.AddTrailer(env.Ctx, msgFile, review.Trailer(a.Time, a.Tree))
}

// signedTarget is the change a signed commit's review shows: what the commit
// brings against its own parent. That is the staged tree against HEAD,
// except for --amend, whose commit replaces HEAD: against HEAD's first
// parent, so that amending a commit nobody reviewed does not sign its
// content with a review of the last touch only. A commit of HEAD's own tree
// (a message-only --amend, an empty commit) is judged like an --amend.
// Without the command line, git's own hint counts: a message taken from
// HEAD ("commit HEAD": --amend, -C HEAD).
func signedTarget(env *cmdline.Env, repo *gitx.Repo, t review.Target, ci commitIntent, source []string) (review.Target, error) {
	if t.BaseCommit == "" {
		return t, nil
	}
	amend := ci.amend
	if !ci.known && len(source) == 2 && source[0] == "commit" && source[1] == "HEAD" {
		amend = true
	}
	found, err := repo.Commits(env.Ctx, t.BaseCommit)
	if err != nil {
		return t, err
	}
	head := found[t.BaseCommit]
	if !amend && head.Tree != t.Tree {
		return t, nil
	}
	if len(head.Parents) == 0 {
		empty, err := repo.EmptyTree(env.Ctx)
		t.Base, t.BaseCommit = empty, ""
		return t, err
	}
	t.Base, t.BaseCommit = head.Parents[0], head.Parents[0]
	return t, nil
}

// previewSigned is git diffgate where commits are signed (commit.gpgSign):
// the review is shown, but no question asked and no approval recorded, since
// git commit asks anyway (signedTrailer): one APPROVE, and one passphrase,
// for each signed commit.
func previewSigned(env *cmdline.Env, repo *gitx.Repo, t review.Target, cfg *config.Config, auto bool) error {
	s, err := present(env, repo, t, cfg, "review", auto)
	if s == nil || err != nil {
		return err
	}
	defer s.tty.Close()
	if err := review.Log(env.Ctx, s.store, t, s.rep, "review", "shown", "commits are signed: approved at git commit"); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nCommits here are signed (commit.gpgsign): git commit shows this review again and asks for\n"+
		"your approval there, so that your key signs only what you approved in that moment.\n"+
		"Nothing was recorded.\n")
	return nil
}

// warnTreeChanged says, after a commit, when its approval names another tree
// than the one git committed: something changed the index file after git
// read it and before the review read it (git fixes a commit's tree before
// prepare-commit-msg runs). verify refuses such a commit; the human must know
// before pushing it.
func warnTreeChanged(env *cmdline.Env, head gitx.CommitHeader) {
	a, err := commitmsg.ParseApproval(head.Message)
	if err != nil || a.Tree == head.Tree {
		return
	}
	env.Warn("the commit %s approves tree %s, but git committed tree %s: the index changed while git commit ran, after git read it; git diffgate verify refuses this commit. Undo it with git reset --soft HEAD~1 and commit again",
		short(head.ID), short(a.Tree), short(head.Tree))
}

// anyApproval finds a Diffgate-Approved line, whatever its case, spacing or
// place in the message, and the continuation lines after it.
var anyApproval = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[ \t]*` + commitmsg.ApprovedKey + `[ \t]*:.*\n?(?:[ \t]+\S.*\n?)*`)
})

// dropApprovalTrailers removes every approval line of a message file, and
// ends it with a newline (see dropStaleTrailers).
func dropApprovalTrailers(path string) error {
	msg, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := anyApproval().ReplaceAll(msg, nil)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if string(out) == string(msg) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}
