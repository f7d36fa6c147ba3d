package cmdline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
)

// Repo opens the repository the command runs in; outside one it is exit 2.
func (e *Env) Repo() (*gitx.Repo, error) {
	r, err := gitx.Open(e.Ctx, e.Dir())
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return r, nil
}

// Config reads .git-tdd.toml as committed at rev: the configuration in force is
// the reviewed one, so an agent cannot loosen a gate by editing the file in its
// working tree. Uncommitted changes to it are reported, not used. With rev "",
// or before the first commit, there is nothing committed and the defaults apply.
func (e *Env) Config(repo *gitx.Repo, rev string) (*config.Config, error) {
	work, werr := os.ReadFile(filepath.Join(repo.Top, config.FileName))
	if werr != nil && !errors.Is(werr, fs.ErrNotExist) {
		return nil, exitcode.Wrap(exitcode.Usage, werr)
	}
	var data []byte
	committed := false
	if rev != "" {
		d, ok, err := repo.FileAt(e.Ctx, rev, config.FileName)
		if err != nil {
			return nil, err
		}
		data, committed = d, ok
	}
	if werr == nil && (!committed || !bytes.Equal(work, data)) {
		msg, err := e.configNotice(repo, rev, work, committed)
		if err != nil {
			return nil, err
		}
		e.warnOnce(msg)
	}
	c, err := config.Parse(data, config.FileName)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return c, nil
}

// GateConfig is the configuration of a gate that must not lock itself out: a
// committed .git-tdd.toml that does not parse gives way to the built-in
// defaults, with a warning on every run, so that the commit that fixes it can
// still be reviewed and made.
func (e *Env) GateConfig(repo *gitx.Repo, rev string) (*config.Config, error) {
	c, err := e.Config(repo, rev)
	var ce *config.Error
	if errors.As(err, &ce) {
		e.Warn("%v", err)
		e.Warn("using the built-in defaults until a %s that parses is committed", config.FileName)
		return config.Default(), nil
	}
	return c, err
}

// configNotice says why the working tree's .git-tdd.toml (work) is not the
// one in force at rev: it is not committed; or it is, at HEAD, and rev is a
// base (a range's, a workflow's) that has none, or another version: a clean CI
// clone of a range that adds the file has nothing uncommitted.
func (e *Env) configNotice(repo *gitx.Repo, rev string, work []byte, committed bool) (string, error) {
	notCommitted := fmt.Sprintf("%s has changes that are not committed; they take effect once committed (using %s)", config.FileName, which(committed))
	if rev == "" {
		return notCommitted, nil
	}
	head, ok, err := repo.FileAt(e.Ctx, "HEAD", config.FileName)
	if err != nil || !ok || !bytes.Equal(head, work) {
		return notCommitted, err
	}
	base := rev
	if id, err := repo.ResolveCommit(e.Ctx, rev); err == nil && len(id) > 12 {
		base = id[:12]
	}
	if !committed {
		return fmt.Sprintf("the base %s has no %s: the defaults apply", base, config.FileName), nil
	}
	return fmt.Sprintf("%s is not the one committed at the base %s: that one applies", config.FileName, base), nil
}

// warnOnce prints a warning the first time it is given: a command that reads
// the configuration at the same commit for each of its steps says it once.
func (e *Env) warnOnce(msg string) {
	if e.warned[msg] {
		return
	}
	if e.warned == nil {
		e.warned = map[string]bool{}
	}
	e.warned[msg] = true
	e.Warn("%s", msg)
}

func which(committed bool) string {
	if committed {
		return "the committed version"
	}
	return "the defaults"
}

// State loads the repository's state; a corrupt file is exit 2 with what to do,
// and is never reset behind the user's back.
func (e *Env) State(repo *gitx.Repo) (*state.Store, *state.State, error) {
	store := state.New(repo.CommonDir)
	st, err := store.Load()
	if err != nil {
		return nil, nil, exitcode.With(exitcode.Usage, err).
			WithHint("inspect or repair it, or move it aside (mv %s %s.bak) to start afresh; approvals and workflows in it are then forgotten", store.Path(), store.Path())
	}
	return store, st, nil
}
