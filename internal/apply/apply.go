// Package apply puts what an agent wrote into a worktree's files the safe way:
// the approval rule and strategies of git tdd write (seed 001), and the
// all-or-nothing edits of git tdd patch (seed 003: FIND/REPLACE blocks, diffs,
// Codex patches). Every path goes through the gate, every write is atomic, and
// every attempt is audited.
package apply

import (
	"context"
	"io"
	"io/fs"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Env is what a write or patch runs with.
type Env struct {
	Ctx     context.Context
	Repo    *gitx.Repo // the working tree written to
	Store   *state.Store
	Cfg     *config.Config
	Out     io.Writer
	Err     io.Writer
	Getenv  func(string) string
	Color   string
	Command string // for the audit log: "tdd write", "tdd patch", "tdd run"
	Issue   string
	Cwd     string // paths are relative to it (the -C directory)
	// TTY, when set, is the terminal to ask on; nil opens /dev/tty when needed.
	TTY *term.TTY
}

// files is the working tree as write and patch use it: an *fsafe.Tree, whose
// writes tests can make fail.
type files interface {
	Resolve(cwd, p string) (string, error)
	ReadFile(rel string) ([]byte, fs.FileMode, bool, error)
	Stat(rel string) (fs.FileInfo, error)
	Write(rel string, data []byte) error
	Remove(rel string) error
	Close() error
}

var openTree = func(dir string, gitDirs ...string) (files, error) { return fsafe.OpenTree(dir, gitDirs...) }

// open opens the working tree, with nothing in git's directories reachable;
// git is told to ignore the writes' temporary files.
func (e *Env) open() (files, error) {
	if err := e.Repo.Exclude(fsafe.TempPattern); err != nil {
		term.Warn(e.Err, "git-tdd", "could not add %s to info/exclude: %v", fsafe.TempPattern, err)
	}
	t, err := openTree(e.Repo.Top, e.Repo.GitDir, e.Repo.CommonDir)
	return t, exitcode.Wrap(exitcode.Usage, err)
}

// tree opens the working tree and resolves p through the path gate.
func (e *Env) tree(p string) (files, string, error) {
	t, err := e.open()
	if err != nil {
		return nil, "", err
	}
	rel, err := e.resolve(t, p)
	if err != nil {
		t.Close()
		return nil, "", err
	}
	return t, rel, nil
}

// Resolve checks p with the path gate, as a write or patch would, and returns
// it relative to the working tree; nothing is read or written.
func (e *Env) Resolve(p string) (string, error) {
	t, rel, err := e.tree(p)
	if err != nil {
		return "", err
	}
	t.Close()
	return rel, nil
}

// resolve checks p with the path gate; a refused path is exit 2 and is audited.
func (e *Env) resolve(t files, p string) (string, error) {
	rel, err := t.Resolve(e.Cwd, p)
	if err != nil {
		e.audit(state.AuditEntry{Path: state.CleanPath(p), Outcome: "refused", Detail: err.Error()})
		return "", exitcode.With(exitcode.Usage, err).WithHint("paths must stay inside the working tree %s and outside .git; nothing was read or written", e.Repo.Top)
	}
	return rel, nil
}

func (e *Env) audit(a state.AuditEntry) {
	a.Command, a.Issue = e.Command, e.Issue
	if err := e.Store.Audit(e.Ctx, a); err != nil {
		term.Warn(e.Err, "git-tdd", "could not write the audit log: %v", err)
	}
}

// openTTY returns the terminal to ask on, or nil when there is none.
func (e *Env) openTTY() (*term.TTY, func()) {
	if e.TTY != nil {
		return e.TTY, func() {}
	}
	t, err := term.OpenTTY(e.Color, e.Getenv, e.Repo.CommonDir)
	if err != nil {
		return nil, func() {}
	}
	return t, func() { t.Close() }
}

func content(data []byte, lines int64) *state.Content { return state.Describe(data, lines) }
