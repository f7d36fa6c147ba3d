package review

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
)

// maxAncestorSpecs: above this many directories, the tree's .gitattributes
// files are found by listing the whole tree rather than by name.
const maxAncestorSpecs = 4096

// conversion is what a checkout does to one file of the change.
type conversion struct {
	names    []string // what converts it, for the report
	checkout *analysis.Checkout
	// caseCheckout is what a checkout on a case-insensitive file system
	// writes, when it converts the file otherwise than checkout's
	caseCheckout *analysis.Checkout
}

// converts is what decides, besides the tree's .gitattributes, how files
// check out here: the attribute files outside the tree, the configuration.
type converts struct {
	limit     int // how much of a checkout (and of its blob) the review holds to show: max_shown_bytes
	outside   []string
	cfg       gitx.ConvertConfig
	cfgRead   bool
	mayConfig bool // the configuration may set core.autocrlf, core.eol or core.attributesFile
}

// newConverts looks, without a process, at what may convert here.
func newConverts(repo *gitx.Repo, limit int) *converts {
	return &converts{limit: limit, outside: repo.OutsideAttributes(""), mayConfig: repo.ConfigMayConvert(), cfg: gitx.ParseConvertConfig(nil)}
}

// config has git say what the configuration sets, once; until then it is
// what ConfigMayConvert allows (nothing), filter drivers aside.
func (c *converts) config(ctx context.Context, repo *gitx.Repo) error {
	if c.cfgRead {
		return nil
	}
	cfg, err := repo.ConvertConfig(ctx)
	if err != nil {
		return err
	}
	c.cfg, c.cfgRead = cfg, true
	c.outside = repo.OutsideAttributes(cfg.AttributesFile)
	return nil
}

// mayConvert reports whether anything can convert a file under the
// attribute files inTree: a file's attribute (git check-attr says which) or
// the configuration. No: text=auto, binary and the like, with LF line endings.
func (c *converts) mayConvert(ctx context.Context, repo *gitx.Repo, inTree []gitx.TreeEntry) (bool, error) {
	if c.mayConfig {
		if err := c.config(ctx, repo); err != nil {
			return false, err
		}
	}
	if len(inTree) == 0 && len(c.outside) == 0 && c.cfg.AutoCRLF != "true" {
		return false, nil
	}
	if !c.cfg.WritesCRLF() {
		if may, err := attributesMayConvert(ctx, repo, inTree, c.outside); err != nil || !may {
			return false, err
		}
	}
	return true, c.config(ctx, repo) // the filter drivers
}

// checkouts finds the files of the change that a checkout of the tree writes
// otherwise than their blob: git tdd's worktrees and CI's clone run those
// bytes, so the review must show them. Attributes count from the tree's own
// .gitattributes files and from the files outside it that a checkout here
// reads too (named in the report); core.autocrlf and core.eol count. A file
// whose attributes name no conversion is never checked out, and nothing else
// runs (a filter's command least of all); with no attributes anywhere and
// no core.autocrlf, which is the common case, no git process runs at all.
// When the change touches a .gitattributes file, the files under it that
// the change leaves as they were and that now check out otherwise are
// found too (see untouched), for that file's warning.
func checkouts(ctx context.Context, repo *gitx.Repo, t Target, diffs []gitx.FileDiff, limit int) (map[string]conversion, map[string][]analysis.Untouched, error) {
	c := newConverts(repo, limit)
	if t.AttributesKnown && len(t.Attributes) == 0 && len(c.outside) == 0 && !c.mayConfig {
		return nil, nil, nil // the common case, decided without a process
	}
	changed, err := c.changed(ctx, repo, t, diffs)
	if err != nil {
		return nil, nil, err
	}
	under, err := c.untouched(ctx, repo, t, diffs)
	return changed, under, err
}

// changed finds the files of the change whose checkout is not their blob.
func (c *converts) changed(ctx context.Context, repo *gitx.Repo, t Target, diffs []gitx.FileDiff) (map[string]conversion, error) {
	files := checkedOut(diffs)
	if len(files) == 0 {
		return nil, nil
	}
	inTree, err := treeAttributes(ctx, repo, t, files)
	if err != nil {
		return nil, err
	}
	if may, err := c.mayConvert(ctx, repo, inTree); err != nil || !may {
		return nil, err
	}
	co, err := repo.NewCheckouts(ctx, slices.Concat(inTree, files), c.cfg.AttributesFile)
	if err != nil {
		return nil, err
	}
	defer co.Close()
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	attrs, err := co.Attrs(ctx, paths)
	if err != nil {
		return nil, err
	}
	named := map[string][]string{}
	var convert []string
	for _, p := range paths {
		if n := gitx.Conversions(attrs[p], c.cfg); len(n) > 0 {
			named[p] = n
			convert = append(convert, p)
		}
	}
	caseNamed, caseConvert, err := c.caseConversions(ctx, repo, co, inTree, paths, named)
	if err != nil || len(convert) == 0 && len(caseConvert) == 0 {
		return nil, err
	}
	if len(c.outside) > 0 && len(convert) > 0 {
		if err := nameOutside(ctx, co, repo, convert, attrs, named, c.outside); err != nil {
			return nil, err
		}
	}
	out, err := c.checkOut(ctx, repo, co, files, convert, named)
	if err != nil || len(caseConvert) == 0 {
		return out, err
	}
	return c.caseCheckOut(ctx, repo, co, files, caseConvert, caseNamed, out)
}

// onCaseInsensitive says of a conversion that only a checkout on a
// case-insensitive file system makes.
const onCaseInsensitive = " on case-insensitive file systems (macOS, Windows)"

// caseConversions are the conversions of the files whose checkout converts
// otherwise on a case-insensitive file system (core.ignorecase, set by git
// at clone on macOS and Windows: `*.PY working-tree-encoding=SHIFT_JIS`
// converts app.py there), when the patterns or the paths can match
// otherwise at all (gitx.CaseMayMatter; else no git runs).
func (c *converts) caseConversions(ctx context.Context, repo *gitx.Repo, co *gitx.Checkouts, inTree []gitx.TreeEntry, paths []string, named map[string][]string) (map[string][]string, []string, error) {
	if may, err := c.caseMayMatter(ctx, repo, inTree, paths); err != nil || !may {
		return nil, nil, err
	}
	attrs, err := co.IgnoringCase().Attrs(ctx, paths)
	if err != nil {
		return nil, nil, err
	}
	caseNamed := map[string][]string{}
	var convert []string
	for _, p := range paths {
		if n := gitx.Conversions(attrs[p], c.cfg); len(n) > 0 && !slices.Equal(n, named[p]) {
			caseNamed[p] = n
			convert = append(convert, p)
		}
	}
	return caseNamed, convert, nil
}

// caseMayMatter reads the attribute files that apply and says whether
// their patterns could match paths otherwise whatever the case.
func (c *converts) caseMayMatter(ctx context.Context, repo *gitx.Repo, inTree []gitx.TreeEntry, paths []string) (bool, error) {
	ids := make([]string, len(inTree))
	for i, e := range inTree {
		ids[i] = e.OID
	}
	blobs, err := repo.Blobs(ctx, ids)
	if err != nil {
		return false, err
	}
	var files [][]byte
	for _, id := range ids {
		data, ok := blobs[id]
		if !ok {
			return true, nil
		}
		files = append(files, data)
	}
	for _, f := range c.outside {
		data, err := os.ReadFile(f)
		if err != nil {
			return true, nil // what cannot be read here, git may read
		}
		files = append(files, data)
	}
	return gitx.CaseMayMatter(files, paths), nil
}

// caseCheckOut checks the files out as a case-insensitive file system would,
// and adds those whose checkout is not their blob to out: with their
// conversions named as there, and that checkout's text.
func (c *converts) caseCheckOut(ctx context.Context, repo *gitx.Repo, co *gitx.Checkouts, files []gitx.TreeEntry, convert []string, named map[string][]string, out map[string]conversion) (map[string]conversion, error) {
	written, err := c.checkOut(ctx, repo, co.IgnoringCase(), files, convert, named)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]conversion{}
	}
	for p, w := range written {
		w.checkout.CaseInsensitive = true
		names := make([]string, len(w.names))
		for i, n := range w.names {
			names[i] = n + onCaseInsensitive
		}
		have, ok := out[p]
		if !ok {
			out[p] = conversion{names: names, checkout: w.checkout}
			continue
		}
		have.names, have.caseCheckout = append(have.names, names...), w.checkout
		out[p] = have
	}
	return out, nil
}

// checkOut has git check the files out, and keeps those whose checkout is not
// their blob, could not be made, or went through a filter's command (whose
// output no review can promise for the next checkout): of each, as much as
// the review shows, and the blob as far.
func (c *converts) checkOut(ctx context.Context, repo *gitx.Repo, co *gitx.Checkouts, files []gitx.TreeEntry, convert []string, named map[string][]string) (map[string]conversion, error) {
	written, err := co.Files(ctx, convert, c.limit)
	if err != nil {
		return nil, err
	}
	oids := map[string]string{}
	for _, f := range files {
		oids[f.Path] = f.OID
	}
	out := map[string]conversion{}
	var blobs []string
	for _, p := range convert {
		w := written[p]
		if w.Same && w.Err == "" && !slices.ContainsFunc(named[p], isFilter) {
			continue
		}
		out[p] = conversion{names: named[p], checkout: &analysis.Checkout{Text: w.Data, Size: w.Size, Same: w.Same, Err: w.Err}}
		blobs = append(blobs, p)
	}
	if len(blobs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(blobs))
	for i, p := range blobs {
		ids[i] = oids[p]
	}
	err = repo.BlobTexts(ctx, ids, c.limit, func(i int, t gitx.Text) error {
		out[blobs[i]].checkout.Blob = t.Data
		return nil
	})
	return out, err
}

// attributesMayConvert reads the attribute files that apply and says
// whether they may hold an attribute that converts with LF line endings.
func attributesMayConvert(ctx context.Context, repo *gitx.Repo, inTree []gitx.TreeEntry, outside []string) (bool, error) {
	ids := make([]string, len(inTree))
	for i, e := range inTree {
		ids[i] = e.OID
	}
	blobs, err := repo.Blobs(ctx, ids)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if data, ok := blobs[id]; !ok || gitx.MayConvert(data) {
			return true, nil
		}
	}
	for _, f := range outside {
		data, err := os.ReadFile(f)
		if err != nil || gitx.MayConvert(data) {
			return true, nil // what cannot be read here, git may read
		}
	}
	return false, nil
}

func isFilter(name string) bool { return strings.HasPrefix(name, "filter=") }

// nameOutside says, for each conversion an attribute file outside the tree
// gives (the attribute has the same value with no .gitattributes at all),
// which file that is: a checkout elsewhere (CI's clone) does not have it.
func nameOutside(ctx context.Context, co *gitx.Checkouts, repo *gitx.Repo, paths []string, attrs map[string]gitx.Attrs, named map[string][]string, files []string) error {
	only, err := co.OutsideAttrs(ctx, paths)
	if err != nil {
		return err
	}
	shown := make([]string, len(files))
	for i, f := range files {
		shown[i] = displayFile(repo.Top, f)
	}
	from := " from " + strings.Join(shown, " or ")
	for _, p := range paths {
		for i, n := range named[p] {
			attr, _, _ := strings.Cut(strings.TrimPrefix(n, "-"), "=")
			if strings.HasPrefix(attr, "core.") {
				continue
			}
			if v := only[p][attr]; v != "" && v != "unspecified" && v == attrs[p][attr] {
				named[p][i] = n + from
			}
		}
	}
	return nil
}

// displayFile shows an attribute file relative to the working tree when it
// is inside it (.git/info/attributes), else as it is.
func displayFile(top, f string) string {
	if rel, err := filepath.Rel(top, f); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return f
}

// checkedOut are the files of the change a checkout writes: added,
// modified, renamed, copied or type-changed regular files (symlinks and
// submodules are not converted, deleted files not written).
func checkedOut(diffs []gitx.FileDiff) []gitx.TreeEntry {
	var out []gitx.TreeEntry
	for _, d := range diffs {
		if d.Status == 'D' || (d.NewMode != gitx.ModeRegular && d.NewMode != gitx.ModeExec) {
			continue
		}
		out = append(out, gitx.TreeEntry{Mode: d.NewMode, Type: "blob", OID: d.NewOID, Path: d.Path})
	}
	return out
}

// treeAttributes are the .gitattributes files of the tree whose attributes
// apply to files: those in the directories that hold them, and above. The
// index listed them for a staged change; otherwise git looks them up.
func treeAttributes(ctx context.Context, repo *gitx.Repo, t Target, files []gitx.TreeEntry) ([]gitx.TreeEntry, error) {
	want := map[string]bool{}
	for _, f := range files {
		for dir := path.Dir(f.Path); ; dir = path.Dir(dir) {
			spec := path.Join(dir, gitx.AttributesFile)
			if want[spec] {
				break // and so are those above
			}
			want[spec] = true
			if dir == "." {
				break
			}
		}
	}
	var found []gitx.TreeEntry
	switch {
	case t.AttributesKnown:
		found = t.Attributes
	case len(want) > maxAncestorSpecs:
		all, err := repo.TreeFiles(ctx, t.Tree, ".")
		if err != nil {
			return nil, err
		}
		for _, e := range all {
			found = append(found, e)
		}
	default:
		specs := make([]string, 0, len(want))
		for s := range want {
			specs = append(specs, s)
		}
		slices.Sort(specs)
		listed, err := repo.LsTree(ctx, t.Tree, specs)
		if err != nil {
			return nil, err
		}
		for _, e := range listed {
			found = append(found, e)
		}
	}
	var out []gitx.TreeEntry
	for _, e := range found {
		// a symlink too: git 2.39 reads its target as the file's text
		// when it takes attributes from the index, as a checkout does
		if want[e.Path] && e.Type == "blob" && gitx.IsBlobMode(e.Mode) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b gitx.TreeEntry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
