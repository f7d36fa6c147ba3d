// Package hooks installs the diff gate's hook shims into a repository's hooks
// directory and removes them, keeping and chaining any hook the user had.
package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/git-tdd/git-tdd/hooks"
	"github.com/git-tdd/git-tdd/internal/atomicfile"
)

// Default are the hooks an install writes: the gate before a commit or merge
// commit, the trailer, and the consumption of an approval once its commit lands.
var Default = []string{"pre-commit", "prepare-commit-msg", "pre-merge-commit", "post-commit", "post-merge"}

// Strict is the hook --strict adds: it judges every branch update.
const Strict = "reference-transaction"

// All are every hook we may write.
var All = append(append([]string{}, Default...), Strict)

// strictHooks are what an install with --strict writes: prepare-commit-msg is
// the gate as well as the trailer (git commit --no-verify does not skip it, and
// a sequencer's commits are judged when the branch moves), and
// reference-transaction judges every branch update and consumes the approvals
// as it lets them land. Two processes an approved commit, not four (DESIGN §9).
var strictHooks = map[string]bool{"prepare-commit-msg": true, Strict: true}

// Wanted reports whether an install in that mode writes hook.
func Wanted(hook string, strict bool) bool {
	if strict {
		return strictHooks[hook]
	}
	return hook != Strict
}

// Gating is what the strict prepare-commit-msg shim runs: the gate and the
// trailer in one process.
const Gating = hooks.Gating

// run is what a hook's shim runs in that mode.
func run(hook string, strict bool) string {
	if strict && hook == "prepare-commit-msg" {
		return hooks.Gating
	}
	return hook
}

// SavedSuffix names the user's own hook once ours takes its place.
const SavedSuffix = ".pre-diffgate"

// Change is what happened to one hook.
type Change struct {
	Hook   string
	Action string
}

// Install writes the shims for the hooks the mode wants into dir (see
// strictHooks); our shims that the mode does not want are removed. A
// hook the user had is kept as <hook>.pre-diffgate and runs first. Installing
// twice changes nothing. On error, what this call changed is undone, but for
// the shims of ours a hook manager had put aside (reclaim).
func Install(dir string, strict, force bool, exe string) ([]Change, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var changes []Change
	var undo []func()
	fail := func(err error) ([]Change, error) {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		return nil, err
	}
	for _, h := range All {
		// what a manager's install left of an earlier one of ours goes
		// first (not undone: it is never wanted)
		cs, err := reclaim(dir, h)
		if err != nil {
			return fail(err)
		}
		changes = append(changes, cs...)
		want := Wanted(h, strict)
		var c Change
		var u func()
		if want {
			c, u, err = install(dir, h, force, exe, run(h, strict))
		} else {
			c, u, err = remove(dir, h)
		}
		if err != nil {
			return fail(err)
		}
		if u != nil {
			undo = append(undo, u)
		}
		if c.Action != "" {
			changes = append(changes, c)
		}
	}
	return changes, nil
}

func install(dir, hook string, force bool, exe, run string) (Change, func(), error) {
	path := filepath.Join(dir, hook)
	saved := path + SavedSuffix
	shim := hooks.Render(hook, exe, run)
	current, ours, err := read(path)
	if err != nil {
		return Change{}, nil, err
	}
	switch {
	case ours && bytes.Equal(current, shim):
		return Change{}, nil, nil
	case ours:
		err := atomicfile.Write(path, shim, 0o755)
		return Change{hook, "updated"}, func() { atomicfile.Write(path, current, 0o755) }, err
	case current == nil:
		err := atomicfile.Write(path, shim, 0o755)
		return Change{hook, "installed"}, func() { os.Remove(path) }, err
	}
	// The user's hook: keep it, chained before ours.
	if exists(saved) {
		if !force {
			return Change{}, nil, fmt.Errorf("%s is not ours, and %s already keeps an earlier hook; "+
				"merge them by hand, or run 'git diffgate install --force' to chain the current one (the earlier one is kept with a date suffix)", path, saved)
		}
		aside := saved + "." + time.Now().UTC().Format("20060102T150405")
		if err := os.Rename(saved, aside); err != nil {
			return Change{}, nil, err
		}
	}
	if err := os.Rename(path, saved); err != nil {
		return Change{}, nil, err
	}
	undo := func() { os.Rename(saved, path) }
	if err := atomicfile.Write(path, shim, 0o755); err != nil {
		undo()
		return Change{}, nil, err
	}
	return Change{hook, "installed; your hook is kept as " + hook + SavedSuffix + " and runs first"}, func() {
		os.Remove(path)
		undo()
	}, nil
}

// remove takes our shim out of dir and puts the user's hook back.
func remove(dir, hook string) (Change, func(), error) {
	path := filepath.Join(dir, hook)
	saved := path + SavedSuffix
	current, ours, err := read(path)
	if err != nil || !ours {
		return Change{}, nil, err
	}
	if err := os.Remove(path); err != nil {
		return Change{}, nil, err
	}
	undo := func() { atomicfile.Write(path, current, 0o755) }
	if !exists(saved) {
		return Change{hook, "removed"}, undo, nil
	}
	if err := os.Rename(saved, path); err != nil {
		undo()
		return Change{}, nil, err
	}
	return Change{hook, "removed; your hook is back"}, func() { os.Rename(path, saved); undo() }, nil
}

// Uninstall removes every shim of ours from dir and restores the user's hooks,
// also where a hook manager installed over ours (see reclaim); anything else
// is left alone.
func Uninstall(dir string) ([]Change, error) {
	var changes []Change
	for _, h := range All {
		c, _, err := remove(dir, h)
		if err != nil {
			return changes, err
		}
		if c.Action != "" {
			changes = append(changes, c)
			continue
		}
		cs, err := reclaim(dir, h)
		changes = append(changes, cs...)
		if err != nil {
			return changes, err
		}
	}
	return changes, nil
}

// reclaim undoes what a hook manager's install made of ours, when hook is no
// longer our shim: pre-commit keeps the hook it replaces as <hook>.legacy and
// runs it first, lefthook keeps it as <hook>.old. Our shim is taken out of
// there (left, it would run the manager's own hook, kept as
// <hook>.pre-diffgate, from inside the manager's: pre-commit stops every
// commit with its "migration mode" error). Then <hook>.pre-diffgate, what was
// there before ours: when it is the manager's own hook, which is in place
// again, it goes; else the user's hook takes our place in the manager's chain.
func reclaim(dir, hook string) ([]Change, error) {
	path := filepath.Join(dir, hook)
	current, ours, err := read(path)
	if err != nil || ours {
		return nil, err
	}
	var changes []Change
	aside := ""
	for _, m := range managers {
		if m.aside == "" {
			continue
		}
		_, stranded, err := read(path + m.aside)
		if err != nil {
			return changes, err
		}
		if !stranded {
			continue
		}
		if err := os.Remove(path + m.aside); err != nil {
			return changes, err
		}
		aside = m.aside
		changes = append(changes, Change{hook + m.aside, "removed (our hook, which " + m.name + " had kept when it installed its own)"})
	}
	saved := path + SavedSuffix
	before, _, err := read(saved)
	if err != nil || before == nil {
		return changes, err
	}
	switch {
	case current != nil && sameManager(before, current):
		if err := os.Remove(saved); err != nil {
			return changes, err
		}
		changes = append(changes, Change{hook + SavedSuffix, "removed: the hook it kept is back in place as " + hook})
	case aside != "" && !exists(path+aside):
		if err := os.Rename(saved, path+aside); err != nil {
			return changes, err
		}
		changes = append(changes, Change{hook + SavedSuffix, "your hook is back as " + hook + aside + ", where ours was"})
	}
	return changes, nil
}

// State is one hook as found in the hooks directory.
type State struct {
	Hook    string
	Ours    bool // our shim is installed
	Other   bool // a hook that is not ours is in its place
	Chained bool // the user's hook is kept and runs first
}

// Inspect reports every hook we may write.
func Inspect(dir string) ([]State, error) {
	var out []State
	for _, h := range All {
		path := filepath.Join(dir, h)
		current, ours, err := read(path)
		if err != nil {
			return nil, err
		}
		out = append(out, State{Hook: h, Ours: ours, Other: current != nil && !ours, Chained: exists(path + SavedSuffix)})
	}
	return out, nil
}

// read returns a hook file's content (nil when absent) and whether it is ours.
// A symlink is never ours: we only write regular files.
func read(path string) ([]byte, bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return []byte{}, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	head := data[:min(len(data), 200)]
	return data, bytes.Contains(head, []byte(hooks.Marker)), nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
