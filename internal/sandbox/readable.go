package sandbox

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Root is a hierarchy granted read access.
type Root struct {
	Path string
	Dir  bool // a directory: its listing and all beneath it; else one file
}

// Readable lists the hierarchies to grant read access to so that everything
// under root is readable but the hidden paths and what they hold: for each
// hidden path, every entry of each of its ancestors (from root down) that is
// neither hidden nor itself an ancestor of a hidden path. Hidden paths are
// absolute and clean and under root, their symbolic links resolved; one that
// does not exist hides nothing more. Symbolic links among the entries are not
// granted: a rule follows the link, and the link could point into a hidden
// directory; its target is granted where it lies. readDir lists a directory
// (os.ReadDir); one that cannot be listed or no longer exists grants nothing,
// which hides more, never less.
func Readable(root string, hidden []string, readDir func(dir string) ([]fs.DirEntry, error)) ([]Root, error) {
	// ancestors: every directory strictly above a hidden path, from root
	ancestors := map[string]bool{}
	hide := map[string]bool{}
	for _, h := range hidden {
		if h == root || !within(h, root) {
			return nil, errors.New("sandbox: hidden path " + h + " is not beneath " + root)
		}
		hide[h] = true
		for d := path.Dir(h); within(d, root); d = path.Dir(d) {
			ancestors[d] = true
			if d == root {
				break
			}
		}
	}
	if len(hidden) == 0 {
		return []Root{{Path: root, Dir: true}}, nil
	}
	var roots []Root
	dirs := make([]string, 0, len(ancestors))
	for d := range ancestors {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if hiddenAbove(d, hide) {
			continue // a hidden directory holds this one
		}
		entries, err := readDir(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || isNotDir(err) {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			p := path.Join(d, e.Name())
			// an ancestor is listed in turn, unless it is a file: nothing
			// can be hidden beneath it
			if hide[p] || ancestors[p] && e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			roots = append(roots, Root{Path: p, Dir: e.IsDir()})
		}
	}
	slices.SortFunc(roots, func(a, b Root) int { return strings.Compare(a.Path, b.Path) })
	return roots, nil
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// hiddenAbove reports whether d or a directory above it is hidden.
func hiddenAbove(d string, hide map[string]bool) bool {
	for {
		if hide[d] {
			return true
		}
		parent := path.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}
