package tdd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"github.com/git-tdd/git-tdd/internal/issueflow"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// IssueCmd is seed 004's workflow: a brief becomes a GitHub issue through a
// drafter, a human, a reviewer and a human again.
type IssueCmd struct {
	New    IssueNewCmd    `cmd:"" help:"Start drafting an issue from a brief (Markdown notes): draft, your edit, review, your approval, gh issue create."`
	Resume IssueResumeCmd `cmd:"" help:"Continue a workflow where it stopped (a closed terminal, Manual, an abort)."`
	List   IssueListCmd   `cmd:"" help:"List the issue workflows and where each stands."`
}

// ghTimeout bounds each gh call: they are single HTTP requests.
const ghTimeout = 2 * time.Minute

// issueFlow prepares a run in the working tree at dir ("" for the current
// one): N1's checks (the drafter and reviewer configured, the review prompt
// committed, the editor and gh found, gh logged in), then the terminal. Every
// check that needs no network and no human comes first.
func issueFlow(env *cmdline.Env, dir, slug string, auto, noSandbox bool) (*issueflow.Flow, func(), error) {
	// the drafter and reviewer are an agent's programs: confined, or refused
	// before anything is done
	if err := agentbox.Check(noSandbox); err != nil {
		return nil, nil, err
	}
	repo, err := env.Repo()
	if err != nil {
		return nil, nil, err
	}
	if err := locate(env, repo); err != nil {
		return nil, nil, err
	}
	if dir != "" && !fsafe.SamePath(dir, repo.Top) {
		if repo, err = gitx.Open(env.Ctx, dir); err != nil {
			return nil, nil, exitcode.With(exitcode.Usage, fmt.Errorf("the workflow's working tree %s: %w", dir, err))
		}
	}
	// the review prompt and [issue] are read at HEAD: a branch's commit, which
	// git diffgate --strict reviews, not a detached commit nobody did
	if branch, err := repo.Branch(env.Ctx); err != nil {
		return nil, nil, err
	} else if !strings.HasPrefix(branch, "refs/heads/") {
		// detached, or a symbolic ref to a tag or another ref nobody reviews
		return nil, nil, exitcode.New(exitcode.Usage, "HEAD is not on a branch: git tdd issue reads its configuration and review prompt from the checked-out branch's commit").
			WithHint("check out a branch (git switch <branch>), then run it again")
	}
	cfg, err := env.Config(repo, "HEAD")
	if err != nil {
		return nil, nil, err
	}
	ic := cfg.Issue
	for _, c := range [][2]string{{"drafter", strings.Join(ic.Drafter, " ")}, {"reviewer", strings.Join(ic.Reviewer, " ")}} {
		if c[1] == "" {
			return nil, nil, exitcode.New(exitcode.Usage, "[issue] %s is not set in %s: it is the command that writes the %s", c[0], config.FileName, map[string]string{"drafter": "drafts", "reviewer": "verdicts"}[c[0]]).
				WithHint("set it (a program that reads a prompt on stdin and answers on stdout) and commit %s", config.FileName)
		}
	}
	review, err := committedFile(env, repo, ic.ReviewPrompt, "the review prompt ([issue] review_prompt)")
	if err != nil {
		return nil, nil, err
	}
	template, err := committedFile(env, repo, ic.Template, "the template ([issue] template)")
	builtin := isMissing(err)
	if builtin {
		template = []byte(prompts.IssueTemplate)
	} else if err != nil {
		return nil, nil, err
	}
	editorCmd, err := repo.Var(env.Ctx, "GIT_EDITOR")
	if err != nil {
		return nil, nil, exitcode.With(exitcode.Usage, fmt.Errorf("no editor: %w", err)).WithHint("set core.editor, GIT_EDITOR, VISUAL or EDITOR")
	}
	editor, err := issueflow.NewEditor(editorCmd, env.Getenv, repo.Top, os.Environ())
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	editor.Repository = editorNote(env, repo, editorCmd)
	signing, err := repo.Signing(env.Ctx)
	if err != nil {
		return nil, nil, err
	}
	if signing.Sign && signing.Foreign != nil {
		// the audit commit is signed last, after the issue is filed: a
		// signing program it would be refused for is refused now
		return nil, nil, exitcode.With(exitcode.Usage, signing.Foreign).WithHint("nothing was changed")
	}
	ghPath, err := issueflow.LookGH(env.Getenv)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if auto || env.Getenv("GIT_TDD_AUTO") == "1" {
		return nil, nil, exitcode.New(exitcode.HumanRequired, "git tdd issue needs a human at every gate, and --auto (or GIT_TDD_AUTO=1) forbids asking; nothing was changed").
			WithHint("run it in a terminal without --auto")
	}
	tty, err := term.OpenTTY(env.Color, env.Getenv, repo.CommonDir)
	if errors.Is(err, heldtty.ErrHeld) {
		return nil, nil, exitcode.With(exitcode.HumanRequired, err).WithHint("nothing was changed")
	}
	if err != nil {
		return nil, nil, exitcode.With(exitcode.HumanRequired, fmt.Errorf("git tdd issue needs a human at every gate, and there is no terminal; nothing was changed")).
			WithHint("run it in a terminal")
	}
	gh := &issueflow.GitHub{Path: ghPath, Repo: ic.Repo, Dir: repo.Top, Env: issueflow.GHEnv(os.Environ()), Timeout: ghTimeout}
	if err := gh.AuthStatus(env.Ctx); err != nil {
		tty.Close()
		if env.Ctx.Err() != nil {
			return nil, nil, env.Ctx.Err()
		}
		return nil, nil, exitcode.With(exitcode.Usage, fmt.Errorf("gh is not logged in (%v); nothing was changed", err)).WithHint("gh auth login")
	}
	if gh.Repo == "" {
		// gh's own choice comes from the remotes, which anything in the
		// repository can change: fixed now, shown at the gate
		if gh.Repo, err = gh.ResolveRepo(env.Ctx); err != nil {
			tty.Close()
			return nil, nil, exitcode.With(exitcode.Usage, fmt.Errorf("gh cannot tell which repository to file in (%v); nothing was changed", err)).
				WithHint("set [issue] repo = \"owner/name\" in %s and commit it", config.FileName)
		}
	}
	box, err := agentbox.Load(env.Ctx, repo, cfg.Sandbox, agentbox.Flags{NoSandbox: noSandbox, Network: ic.Network, Ports: ic.Ports}, env.Getenv)
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	store := state.New(repo.CommonDir)
	if noSandbox {
		if err := store.Audit(env.Ctx, state.AuditEntry{Command: "issue", Issue: slug, Outcome: "unconfined",
			Detail: "--no-sandbox: the drafter and reviewer ran without the sandbox"}); err != nil {
			tty.Close()
			return nil, nil, err
		}
	}
	tree, err := fsafe.OpenTree(repo.Top, repo.GitDir, repo.CommonDir)
	if err != nil {
		tty.Close()
		return nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	editor.TTY = tty.File()
	f := &issueflow.Flow{Ctx: env.Ctx, Repo: repo, Tree: tree, Store: store, Cfg: ic,
		Template: string(template), ReviewPrompt: string(review), Human: tty, Editor: editor,
		Drafter:  issueflow.Command(ic.Drafter, os.Environ(), ic.Timeout.Duration, box, env.Stderr),
		Reviewer: issueflow.Command(ic.Reviewer, os.Environ(), ic.Timeout.Duration, box, env.Stderr),
		GitHub:   gh, Repository: gh.Repo, Sign: signing.Sign, Out: env.Stdout, Err: env.Stderr}
	dataPolicy(env, ic, gh.Repo, builtin)
	return f, func() { tree.Close(); tty.Close() }, nil
}

// editorNote names the editor the gates open when the repository's own
// configuration chose it, and says whether it did: anything with a shell in
// the repository can write .git/config, and an "editor" that returns at once
// shows the human nothing, or leaves a program that passes for its server.
func editorNote(env *cmdline.Env, repo *gitx.Repo, editor string) bool {
	if env.Getenv("GIT_EDITOR") != "" {
		return false
	}
	if scope, ok, _ := repo.ConfigScope(env.Ctx, "core.editor"); ok && (scope == "local" || scope == "worktree") {
		env.Warn("the editor %q comes from this repository's own configuration (core.editor in .git/config), which anything that runs here can change", term.Line(editor, 80))
		return true
	}
	return false
}

// dataPolicy says, before anything is sent, who gets what.
func dataPolicy(env *cmdline.Env, ic config.Issue, where string, builtinTemplate bool) {
	if builtinTemplate {
		fmt.Fprintf(env.Stderr, "git tdd issue: %s is not committed; the drafter follows the built-in template\n", term.Path(ic.Template))
	}
	fmt.Fprintf(env.Stderr, "git tdd issue: the drafter (%s) gets the brief, the template and your feedback; the reviewer (%s) gets %s and each draft you send; gh files only a draft you approve, in %s\n",
		term.Line(strings.Join(ic.Drafter, " "), 80), term.Line(strings.Join(ic.Reviewer, " "), 80), term.Path(ic.ReviewPrompt), where)
}

// errMissing is a file that HEAD does not have.
var errMissing = errors.New("not committed")

func isMissing(err error) bool { return errors.Is(err, errMissing) }

// committedFile reads a file of the configuration as committed at HEAD: the
// review prompt steers the reviewer, so an uncommitted edit (an agent's) is
// never used, only reported.
func committedFile(env *cmdline.Env, repo *gitx.Repo, path, what string) ([]byte, error) {
	data, ok, err := repo.FileAt(env.Ctx, "HEAD", path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, exitcode.With(exitcode.Usage, fmt.Errorf("%s %s is not committed: %w", what, term.Path(path), errMissing)).
			WithHint("write it, commit it, and run this again: it is read as committed, so nobody can swap it unreviewed")
	}
	if work, err := os.ReadFile(repo.Top + "/" + path); err == nil && !bytes.Equal(work, data) {
		env.Warn("%s has changes that are not committed; using the committed version", term.Path(path))
	}
	return data, nil
}
