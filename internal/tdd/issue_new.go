package tdd

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/contextcheck"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/issueflow"
	"github.com/git-tdd/git-tdd/internal/term"
)

// IssueNewCmd starts a workflow from a brief (seed 004 N0).
type IssueNewCmd struct {
	Brief string `arg:"" placeholder:"BRIEF.md" help:"Your notes on what the issue is about; the workflow is named after the file."`
	Name  string `placeholder:"SLUG" help:"Name the workflow (default: the brief's file name without its extension)."`
	Auto  bool   `help:"Never ask a human: exit 3 at once (also GIT_TDD_AUTO=1); every step of this workflow needs one."`
	// NoSandbox is the human's word only: no file or variable sets it.
	NoSandbox bool `name:"no-sandbox" help:"Run the drafter and reviewer without the sandbox, where this machine cannot confine them (warned each call, recorded in the audit log)."`
}

// Run loads the brief, checks everything N1 checks, and runs the workflow.
func (c *IssueNewCmd) Run(env *cmdline.Env) error {
	cwd, err := env.Cwd()
	if err != nil {
		return err
	}
	brief, err := readBrief(cwd, c.Brief)
	if err != nil {
		return err
	}
	slug := c.Name
	if slug == "" {
		if slug = issueflow.SlugFor(c.Brief); slug == "" {
			return exitcode.New(exitcode.Usage, "cannot name the workflow after %s: its file name has no letters a-z or digits", term.Path(c.Brief)).
				WithHint("name it: git tdd issue new --name <slug> %s", term.ShellQuote(c.Brief))
		}
	}
	if err := issueflow.CheckSlug(slug); err != nil {
		return exitcode.With(exitcode.Usage, err).WithHint("name it: git tdd issue new --name <slug> %s", term.ShellQuote(c.Brief))
	}
	f, done, err := issueFlow(env, "", slug, c.Auto, c.NoSandbox)
	if err != nil {
		return err
	}
	defer done()
	return f.Start(c.Brief, brief, slug)
}

// readBrief reads the brief (given relative to cwd, or absolute): a regular
// file of at most issueflow.MaxFile bytes, with something in it, that is not
// reached through a symlink or a hard link: one planted where notes are
// expected would send what it points to (a key, a token) to the drafter.
func readBrief(cwd, shown string) ([]byte, error) {
	path, want := shown, filepath.Clean(shown)
	if !filepath.IsAbs(shown) {
		path = filepath.Join(cwd, shown)
		if realCwd, err := filepath.EvalSymlinks(cwd); err == nil {
			want = filepath.Join(realCwd, shown) // where cwd itself is, however it was reached
		}
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, exitcode.New(exitcode.Usage, "the brief %s is a symlink: give the file itself", term.Path(shown))
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != want {
		return nil, exitcode.New(exitcode.Usage, "the brief %s is reached through a symlink: give the file's own path", term.Path(shown))
	}
	if why := contextcheck.SecretName(path, nil); why != "" {
		return nil, exitcode.New(exitcode.Usage, "the brief %s is not sent to the drafter: %s", term.Path(shown), why)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, "cannot read the brief %s: %v", term.Path(shown), unwrapPath(err))
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, exitcode.New(exitcode.Usage, "the brief %s is not a regular file", term.Path(shown))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return nil, exitcode.New(exitcode.Usage, "the brief %s has other names (hard links): copy it to a file of its own", term.Path(shown))
	}
	data, err := io.ReadAll(io.LimitReader(file, issueflow.MaxFile+1))
	switch {
	case err != nil:
		return nil, exitcode.Wrap(exitcode.Usage, err)
	case len(data) > issueflow.MaxFile:
		return nil, exitcode.New(exitcode.Usage, "the brief %s is larger than %d bytes", term.Path(shown), issueflow.MaxFile)
	case strings.TrimSpace(string(data)) == "":
		return nil, exitcode.New(exitcode.Usage, "the brief %s is empty", term.Path(shown))
	}
	if why := contextcheck.SecretContent(data); why != "" {
		return nil, exitcode.New(exitcode.Usage, "the brief %s is not sent to the drafter: %s", term.Path(shown), why)
	}
	return data, nil
}

// unwrapPath is an error without the path it names (the message names it as given).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
