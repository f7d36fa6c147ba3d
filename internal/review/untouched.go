package review

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
)

// maxUntouchedShown is how many of the files a .gitattributes change
// converts, the change leaving them as they were, are checked out and shown;
// the others are named with what converts them.
const maxUntouchedShown = 20

// untouched finds, for each .gitattributes file the change adds, modifies,
// renames or deletes, the files under its directory that the change leaves
// as they were and whose checkout the change converts: their attributes
// convert them in the tree under review, and did not (or otherwise) in the
// base. The blob the human approved earlier is no longer what runs. Nothing
// runs when the change touches no .gitattributes, or when the tree's
// attributes cannot convert anything.
func (c *converts) untouched(ctx context.Context, repo *gitx.Repo, t Target, diffs []gitx.FileDiff) (map[string][]analysis.Untouched, error) {
	var touched []string
	inChange := map[string]bool{}
	for _, d := range diffs {
		inChange[d.Path] = true
		if gitx.IsAttributesFile(d.Path) {
			touched = append(touched, d.Path)
		}
		if d.Status == 'R' && gitx.IsAttributesFile(d.OldPath) {
			touched = append(touched, d.OldPath)
		}
	}
	if len(touched) == 0 {
		return nil, nil
	}
	if t.AttributesKnown { // all of the tree's: before listing it, whether any can convert
		if may, err := c.mayConvert(ctx, repo, t.Attributes); err != nil || !may {
			return nil, err
		}
	}
	files, err := filesUnder(ctx, repo, t.Tree, touched, inChange)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	inTree, err := treeAttributes(ctx, repo, t, files)
	if err != nil {
		return nil, err
	}
	if may, err := c.mayConvert(ctx, repo, inTree); err != nil || !may {
		return nil, err
	}
	inBase, err := treeAttributes(ctx, repo, Target{Tree: t.Base}, files)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	named, err := c.newlyConverted(ctx, repo, inTree, inBase, files, paths, false)
	if err != nil {
		return nil, err
	}
	// and as a case-insensitive file system checks them out, when it can differ
	caseNamed := map[string][]string{}
	if may, err := c.caseMayMatter(ctx, repo, slices.Concat(inTree, inBase), paths); err != nil {
		return nil, err
	} else if may {
		if caseNamed, err = c.newlyConverted(ctx, repo, inTree, inBase, files, paths, true); err != nil {
			return nil, err
		}
	}
	var converted, shown, caseShown []string
	for _, p := range paths {
		if slices.Equal(caseNamed[p], named[p]) {
			delete(caseNamed, p)
		}
		if named[p] == nil && caseNamed[p] == nil {
			continue
		}
		converted = append(converted, p)
		switch {
		case len(converted) > maxUntouchedShown:
		case named[p] != nil:
			shown = append(shown, p)
		default:
			caseShown = append(caseShown, p)
		}
	}
	if len(converted) == 0 {
		return nil, nil
	}
	co, err := repo.NewCheckouts(ctx, slices.Concat(inTree, files), c.cfg.AttributesFile)
	if err != nil {
		return nil, err
	}
	defer co.Close()
	written, err := c.checkOut(ctx, repo, co, files, shown, named)
	if err != nil {
		return nil, err
	}
	if len(caseShown) > 0 {
		if written, err = c.caseCheckOut(ctx, repo, co, files, caseShown, caseNamed, written); err != nil {
			return nil, err
		}
	}
	var found []analysis.Untouched
	for i, p := range converted {
		if i < maxUntouchedShown {
			if w, ok := written[p]; ok {
				names := w.names
				if named[p] != nil { // what a case-insensitive file system does besides
					for _, n := range caseNamed[p] {
						names = append(slices.Clip(names), n+onCaseInsensitive)
					}
				}
				found = append(found, analysis.Untouched{Path: p, Converted: names, Checkout: w.checkout})
			}
			continue
		}
		names := named[p]
		for _, n := range caseNamed[p] {
			names = append(slices.Clip(names), n+onCaseInsensitive)
		}
		found = append(found, analysis.Untouched{Path: p, Converted: names})
	}
	out := map[string][]analysis.Untouched{}
	for _, a := range touched {
		dir := path.Dir(a)
		for _, u := range found {
			if dir == "." || strings.HasPrefix(u.Path, dir+"/") {
				out[a] = append(out[a], u)
			}
		}
	}
	return out, nil
}

// newlyConverted names the conversions of the paths that the attribute files
// of the tree (inTree) make, and those of the base (inBase) did not, or
// otherwise; ignoreCase: as a case-insensitive file system matches them.
func (c *converts) newlyConverted(ctx context.Context, repo *gitx.Repo, inTree, inBase, files []gitx.TreeEntry, paths []string, ignoreCase bool) (map[string][]string, error) {
	now, err := c.attrsOf(ctx, repo, inTree, files, paths, ignoreCase)
	if err != nil {
		return nil, err
	}
	before, err := c.attrsOf(ctx, repo, inBase, files, paths, ignoreCase)
	if err != nil {
		return nil, err
	}
	named := map[string][]string{}
	for _, p := range paths {
		n := gitx.Conversions(now[p], c.cfg)
		if len(n) > 0 && !slices.Equal(n, gitx.Conversions(before[p], c.cfg)) {
			named[p] = n
		}
	}
	return named, nil
}

// attrsOf are the checkout attributes of paths under the attribute files
// attrs, matched whatever the case when ignoreCase.
func (c *converts) attrsOf(ctx context.Context, repo *gitx.Repo, attrs, files []gitx.TreeEntry, paths []string, ignoreCase bool) (map[string]gitx.Attrs, error) {
	co, err := repo.NewCheckouts(ctx, slices.Concat(attrs, files), c.cfg.AttributesFile)
	if err != nil {
		return nil, err
	}
	defer co.Close()
	if ignoreCase {
		return co.IgnoringCase().Attrs(ctx, paths)
	}
	return co.Attrs(ctx, paths)
}

// filesUnder lists the regular files of tree in the directories of the
// attribute files, leaving out those in the change.
func filesUnder(ctx context.Context, repo *gitx.Repo, tree string, attrFiles []string, inChange map[string]bool) ([]gitx.TreeEntry, error) {
	dirs := map[string]bool{}
	for _, a := range attrFiles {
		dirs[path.Dir(a)] = true
	}
	seen := map[string]bool{}
	var out []gitx.TreeEntry
	for dir := range dirs {
		listed, err := repo.TreeFiles(ctx, tree, dir)
		if err != nil {
			return nil, err
		}
		for p, e := range listed {
			if seen[p] || inChange[p] || gitx.IsAttributesFile(p) || e.Type != "blob" || (e.Mode != gitx.ModeRegular && e.Mode != gitx.ModeExec) {
				continue
			}
			seen[p] = true
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b gitx.TreeEntry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
