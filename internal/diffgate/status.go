package diffgate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/hooks"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// StatusCmd shows the hooks, the signing set-up and the approval state of the
// staged change.
type StatusCmd struct {
	JSON bool `name:"json" help:"Print it as JSON."`
}

// StatusReport is what status --json prints.
type StatusReport struct {
	Hooks      HooksStatus     `json:"hooks"`
	Signing    Signing         `json:"signing"`
	Signers    string          `json:"allowed_signers"` // "" when none is configured
	StagedTree string          `json:"staged_tree"`
	Base       string          `json:"base"`     // the commit the change is on; "" before the first
	Staged     bool            `json:"staged"`   // anything staged
	Approval   *state.Approval `json:"approval"` // of the staged tree on base, or null
}

// HooksStatus says which hooks are ours.
type HooksStatus struct {
	Dir       string   `json:"dir"`
	Installed bool     `json:"installed"`
	Strict    bool     `json:"strict"`
	Missing   []string `json:"missing"`
	Chained   []string `json:"chained"` // hooks of the user's that run first
	// Managers are the hook managers that own the hooks (lefthook,
	// pre-commit, husky): the gate belongs in their configuration.
	Managers []string `json:"managers"`
	// Through are the managers whose configuration runs the gate, each as
	// "name (file)"; its hooks count as installed where git runs the
	// manager's hook.
	Through []string `json:"through"`
	// Unhooked are the git hooks a manager's configuration runs the gate
	// from, where git runs no hook of that manager's (its install was not run)
	Unhooked []string `json:"unhooked"`
}

// Run prints the hooks, the signing set-up, the staged tree and its approval.
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
	h, err := hooksStatus(env, repo)
	if err != nil {
		return err
	}
	rep := StatusReport{Hooks: h, StagedTree: t.Tree, Base: t.BaseCommit, Staged: true}
	rep.Signers, rep.Signing = signingSetup(env, repo)
	if t.BaseCommit != "" {
		if headTree, err := repo.TreeOf(env.Ctx, t.BaseCommit); err == nil && headTree == t.Tree {
			rep.Staged = false
		}
	}
	if rep.Staged {
		rep.Approval = st.FindApproval(t.Tree, t.BaseCommit)
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printStatus(env, rep)
	return nil
}

// signingSetup reads the allowed-signers file committed at HEAD, if the
// configuration names one, and this user's signing configuration.
func signingSetup(env *cmdline.Env, repo *gitx.Repo) (string, Signing) {
	var signers []byte
	path := ""
	if cfg, err := env.GateConfig(repo, "HEAD"); err == nil && cfg.Diffgate.AllowedSigners != "" {
		path = cfg.Diffgate.AllowedSigners
		signers, _, _ = repo.FileAt(env.Ctx, "HEAD", path)
	}
	return path, signingOf(env.Ctx, repo, signers)
}

// printStatus prints the report for people. Its values come from the
// configuration and state.toml, which anything running as the user writes:
// each is escaped (term.Path, term.Line), so that none can move the cursor
// or hide what follows on the terminal.
func printStatus(env *cmdline.Env, rep StatusReport) {
	w := env.Stdout
	h := rep.Hooks
	h.Dir = term.Path(h.Dir)
	where := "in " + h.Dir
	if len(h.Through) > 0 {
		where = "through " + term.Line(strings.Join(h.Through, ", "), 200) + " " + where
	}
	fix := "run 'git diffgate install'"
	if len(h.Managers) > 0 {
		fix = "'git diffgate install' says how to add them to " + h.Managers[0]
	}
	switch {
	case !h.Installed:
		fmt.Fprintf(w, "hooks:        not installed in %s; %s\n", h.Dir, fix)
	case len(h.Missing) > 0:
		fmt.Fprintf(w, "hooks:        incomplete %s: missing %s; %s\n", where, strings.Join(h.Missing, ", "), fix)
	case h.Strict:
		fmt.Fprintf(w, "hooks:        installed %s (strict)\n", where)
	case len(h.Through) > 0:
		fmt.Fprintf(w, "hooks:        through %s in %s\n", term.Line(strings.Join(h.Through, ", "), 200), h.Dir)
	default:
		fmt.Fprintf(w, "hooks:        installed in %s\n", h.Dir)
	}
	for _, c := range h.Chained {
		fmt.Fprintf(w, "              your %s hook runs first (%s%s)\n", c, c, hooks.SavedSuffix)
	}
	if len(h.Unhooked) > 0 {
		fmt.Fprintf(w, "              the configuration runs the gate from %s, but git runs no hook of the manager's there: run its install\n", strings.Join(h.Unhooked, ", "))
	}
	if len(h.Through) == 0 && len(h.Unhooked) == 0 {
		for _, m := range h.Managers {
			fmt.Fprintf(w, "              %s manages the hooks: the gate belongs in its configuration (git diffgate install says how)\n", m)
		}
	}
	fmt.Fprintf(w, "signing:      %s\n", rep.Signing.describe(rep.Signers))
	fmt.Fprintf(w, "sandbox:      %s\n", agentbox.StatusLine())
	fmt.Fprintf(w, "staged tree:  %s on %s\n", rep.StagedTree, parentName(rep.Base))
	a := rep.Approval
	switch {
	case !rep.Staged:
		fmt.Fprintln(w, "approval:     nothing staged")
		return
	case rep.Signing.Sign:
		fmt.Fprintln(w, "approval:     asked by git commit, on the terminal: commits are signed, and a signed commit takes no approval from state.toml")
		return
	case a == nil:
		fmt.Fprintln(w, "approval:     none; run 'git diffgate' in a terminal to review the staged change")
		return
	}
	fmt.Fprintf(w, "approval:     approved %s by %s\n", a.Time.Local().Format(time.RFC3339), term.Line(a.By, 40))
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
}

// hooksStatus says which of our hooks are installed, and in which mode.
func hooksStatus(env *cmdline.Env, repo *gitx.Repo) (HooksStatus, error) {
	dir, err := repo.HooksDir(env.Ctx)
	if err != nil {
		return HooksStatus{}, err
	}
	states, err := hooks.Inspect(dir)
	if err != nil {
		return HooksStatus{}, err
	}
	h := HooksStatus{Dir: dir, Missing: []string{}, Chained: []string{}, Managers: []string{}, Unhooked: []string{}}
	hooksPath, _, _ := repo.ConfigValue(env.Ctx, "core.hooksPath")
	for _, m := range hooks.Managers(repo.Top, dir, hooksPath) {
		h.Managers = append(h.Managers, m.Name)
	}
	// the hooks that run the gate: ours, or a manager's whose configuration
	// runs it
	runs := map[string]bool{}
	gates := hooks.Gates(repo.Top, dir)
	for _, g := range gates {
		if len(g.Active) == 0 {
			continue
		}
		h.Through = append(h.Through, g.Manager+" ("+g.File+")")
		for _, hook := range g.Active {
			runs[hook] = true
		}
	}
	for _, s := range states {
		if s.Ours {
			runs[s.Hook] = true
			if s.Chained {
				h.Chained = append(h.Chained, s.Hook)
			}
		}
	}
	for _, g := range gates {
		for _, hook := range hooks.All {
			if _, gated := g.Runs[hook]; gated && !runs[hook] {
				h.Unhooked = append(h.Unhooked, hook)
			}
		}
	}
	h.Installed = len(runs) > 0
	// reference-transaction judges every branch update: --strict, whoever
	// runs it
	h.Strict = runs[hooks.Strict]
	for _, hook := range hooks.All {
		if !runs[hook] && hooks.Wanted(hook, h.Strict) {
			h.Missing = append(h.Missing, hook)
		}
	}
	if h.Through == nil {
		h.Through = []string{}
	}
	return h, nil
}
