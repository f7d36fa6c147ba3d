package tdd

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/contextcheck"
	"github.com/git-tdd/git-tdd/internal/excerpt"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
	"github.com/git-tdd/git-tdd/internal/term"
	"github.com/git-tdd/git-tdd/internal/tokens"
)

// ContextCmd checks files for an agent's context (seed 002, N0) and prints them.
type ContextCmd struct {
	Paths []string `arg:"" optional:"" help:"The files to give as context."`
	LLD   string   `name:"lld" placeholder:"FILE" help:"The design document, checked and bundled too."`
	JSON  bool     `name:"json" help:"Print the bundle as JSON."`
}

// bundleMemory is the heap a bundle is built in: the tokenizer's matcher
// allocates some 60 times the text it counts, and with Go's default pacing
// 200 files of 50 KB took 80 MB (issue 12: under 64 MB). With this soft
// limit their private memory peaks at 24-25 MB in 0.67 s (make bench; the
// resident total adds the binary's pages the page cache holds, 37-55 MB).
// Only when GOMEMLIMIT is unset.
const bundleMemory = 28 << 20

func boundMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(bundleMemory)
	}
}

// contextJSON is context --json's output.
type contextJSON struct {
	Files     []contextcheck.File `json:"files"`
	LLD       string              `json:"lld,omitempty"`
	Tokens    int                 `json:"tokens"`
	MaxTokens int                 `json:"max_tokens"`
	Encoding  string              `json:"encoding"`
}

// Run checks and prints the bundle; any refusal is exit 2, naming each path.
func (c *ContextCmd) Run(env *cmdline.Env) error {
	boundMemory()
	l, cfg, _, err := inForceEnv(env)
	if err != nil {
		return err
	}
	var paths []string // the design document first: it leads the bundle
	if c.LLD != "" {
		paths = append(paths, c.LLD)
	}
	paths = append(paths, c.Paths...)
	if len(paths) == 0 {
		return exitcode.New(exitcode.Usage, "name the files to check").WithHint("git tdd context PATH... [--lld FILE]")
	}
	res, err := fitContext(l, paths, cfg, c.LLD != "")
	if err != nil {
		return err
	}
	if c.JSON {
		out := contextJSON{Files: res.Files, Tokens: res.Tokens, MaxTokens: cfg.Context.MaxTokens, Encoding: tokens.Encoding}
		if c.LLD != "" {
			out.LLD = res.Files[0].Path
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(env.Stdout, "# context: %s, %d tokens of %d (%s)\n", term.Count(len(res.Files), "file", "files"), res.Tokens, cfg.Context.MaxTokens, tokens.Encoding)
	for _, f := range res.Files {
		if f.Sent != "whole" { // a large Python or Go file: the part that is sent
			fmt.Fprintf(env.Stdout, "\n=== %s (%s of %d bytes: %d bytes, %d tokens) ===\n%s", f.Path, f.Sent, f.Size, f.Bytes, f.Tokens, f.Content)
		} else {
			fmt.Fprintf(env.Stdout, "\n=== %s (%d bytes, %d tokens) ===\n%s", f.Path, f.Bytes, f.Tokens, f.Content)
		}
		if n := len(f.Content); n > 0 && f.Content[n-1] != '\n' {
			fmt.Fprintln(env.Stdout)
		}
	}
	return nil
}

// checkContext applies the context rules with the real token counter; any
// problem is exit 2 with one line a path.
func checkContext(l *lifecycle.Env, paths []string, cfg *config.Config) (*contextcheck.Result, error) {
	res := contextcheck.Check(l.Repo.Top, l.Cwd, paths, cfg.Context, tokens.Count, l.Repo.GitDir, l.Repo.CommonDir)
	return res, res.Err("the context is refused: " + term.Count(len(res.Problems), "problem", "problems"))
}

// fitContext is checkContext, but a Python or Go file over the size limit is
// sent in part, as git tdd run sends it: its imports, outline and the
// definitions the design (the first path, when withDesign) names in its code.
func fitContext(l *lifecycle.Env, paths []string, cfg *config.Config, withDesign bool) (*contextcheck.Result, error) {
	want := excerpt.Want{}
	if withDesign {
		d := contextcheck.Check(l.Repo.Top, l.Cwd, paths[:1], cfg.Context, nil, l.Repo.GitDir, l.Repo.CommonDir)
		if d.OK() {
			want.Names = excerpt.CodeIdentifiers(d.Files[0].Content)
		}
	}
	res := contextcheck.Fit(l.Repo.Top, l.Cwd, paths, cfg.Context, tokens.Count, want, l.Repo.GitDir, l.Repo.CommonDir)
	return res, res.Err("the context is refused: " + term.Count(len(res.Problems), "problem", "problems"))
}
