package gitx

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What a checkout writes, asked of git itself: attributes and conversions
// are git's to apply (iconv, filter commands), and only git applies them as
// a checkout does. The tree's own .gitattributes files, the repository's
// info/attributes, core.attributesFile (or its default) and the system's
// file all count, as they do when git checks a file out here.

// ConvertConfig has git say how it is configured to convert files on
// checkout: core.autocrlf, core.eol, core.attributesFile and the filter drivers.
func (r *Repo) ConvertConfig(ctx context.Context) (ConvertConfig, error) {
	out, err := r.output(ctx, "config", "-z", "--get-regexp", `^(core\.(autocrlf|eol|attributesfile)|filter\..+\.(smudge|process|required))$`)
	if exitCode(err) == 1 { // nothing set
		return ParseConvertConfig(nil), nil
	}
	if err != nil {
		return ConvertConfig{}, err
	}
	return ParseConvertConfig(out), nil
}

// Checkouts asks git, for some files of a tree, which attributes a checkout
// applies to them and what it writes. It holds a throwaway index with those
// files and the tree's .gitattributes files that apply to them, and an empty
// working tree: git reads the attributes of a checkout from the index when
// the working tree has none, so that no file on disk (an uncommitted
// .gitattributes) has a say.
type Checkouts struct {
	repo  *Repo    // the throwaway index and working tree, run from there
	flags []string // -c settings for every call
	dir   string
	blobs map[string]string // path → blob id
}

// Checkout is what git writes for one file.
type Checkout struct {
	Data []byte // the first limit bytes
	Size int64
	Same bool   // exactly the blob
	Err  string // what git said when it could not check the file out ("" when it did)
}

// NewCheckouts writes the throwaway index: entries are the files (regular
// blobs) and the .gitattributes files of the tree whose attributes apply to
// them. attributesFile is core.attributesFile as configured: a relative one
// is read from the top of the working tree, as git does there. Close removes
// it all.
func (r *Repo) NewCheckouts(ctx context.Context, entries []TreeEntry, attributesFile string) (*Checkouts, error) {
	gitDir := r.GitDir
	if gitDir == "" {
		out, err := r.output(ctx, "rev-parse", "--absolute-git-dir")
		if err != nil {
			return nil, err
		}
		gitDir = strings.TrimSuffix(string(out), "\n")
	}
	dir, err := os.MkdirTemp("", "git-tdd-checkout-")
	if err != nil {
		return nil, err
	}
	wt := filepath.Join(dir, "wt")
	if err := os.Mkdir(wt, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Checkouts{dir: dir, blobs: map[string]string{}}
	c.repo = r.WithEnv("GIT_DIR="+gitDir, "GIT_WORK_TREE="+wt, "GIT_INDEX_FILE="+filepath.Join(dir, "index"))
	c.repo.Top = wt
	// a relative core.attributesFile names a file at the top of the real
	// working tree; hooks, fsmonitor and a split index would run programs
	// or write into the repository for a throwaway index
	if f := r.globalAttributes(attributesFile); attributesFile != "" && !filepath.IsAbs(attributesFile) && !strings.HasPrefix(attributesFile, "~/") {
		c.flags = append(c.flags, "-c", "core.attributesFile="+f)
	}
	c.flags = slices.Concat(c.flags, noHooks, []string{"-c", "core.fsmonitor=false", "-c", "core.splitIndex=false", "-c", "index.sparse=false"})
	var info bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&info, "%o %s\t%s\x00", e.Mode, e.OID, e.Path)
		c.blobs[e.Path] = e.OID
	}
	if _, err := c.git(ctx, c.repo, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// IgnoringCase is the same throwaway index and working tree, asked as git
// asks on a case-insensitive file system (macOS, Windows: core.ignorecase,
// which git sets at clone there), where attribute patterns match whatever
// the case. Close the Checkouts it came from, not it.
func (c *Checkouts) IgnoringCase() *Checkouts {
	ci := *c
	ci.flags = slices.Concat(c.flags, []string{"-c", "core.ignorecase=true"})
	return &ci
}

// git runs a command on the throwaway index (r: c.repo, or a variant of it).
func (c *Checkouts) git(ctx context.Context, r *Repo, stdin []byte, args ...string) ([]byte, error) {
	return r.outputIn(ctx, stdin, append(slices.Clone(c.flags), args...)...)
}

// Close removes the throwaway index and working tree.
func (c *Checkouts) Close() { os.RemoveAll(c.dir) }

// Attrs are the checkout attributes of paths, as git check-attr reads them
// from the throwaway index and the files outside the tree.
func (c *Checkouts) Attrs(ctx context.Context, paths []string) (map[string]Attrs, error) {
	return c.checkAttr(ctx, c.repo, paths)
}

// OutsideAttrs are the checkout attributes of paths that the files outside
// the tree alone give them (an empty index holds no .gitattributes): what a
// checkout here has that a clone's does not.
func (c *Checkouts) OutsideAttrs(ctx context.Context, paths []string) (map[string]Attrs, error) {
	return c.checkAttr(ctx, c.repo.WithEnv("GIT_INDEX_FILE="+filepath.Join(c.dir, "empty-index")), paths)
}

func (c *Checkouts) checkAttr(ctx context.Context, r *Repo, paths []string) (map[string]Attrs, error) {
	out, err := c.git(ctx, r, nulJoin(paths), append([]string{"check-attr", "--cached", "-z", "--stdin"}, CheckoutAttrs...)...)
	if err != nil {
		return nil, err
	}
	return ParseCheckAttr(out)
}

// Files checks paths out as git would here (each into a file of its own in
// the empty working tree, git checkout-index --temp) and reads what it wrote,
// up to limit bytes each; Size and Same are of the whole file. A path git
// could not check out (a required smudge filter that failed, an encoding set
// without a name) gets Err with what git said, and the others are still
// checked out: git stops at the first such path, and goes on after it.
func (c *Checkouts) Files(ctx context.Context, paths []string, limit int) (map[string]Checkout, error) {
	files := make(map[string]Checkout, len(paths))
	for rest := paths; len(rest) > 0; {
		out, err := c.git(ctx, c.repo, nulJoin(rest), "checkout-index", "--temp", "-z", "--stdin")
		var ce *CommandError
		if err != nil && !errors.As(err, &ce) {
			return nil, err
		}
		written, perr := ParseCheckoutTemp(out)
		if perr != nil {
			return nil, perr
		}
		var missing []string
		for _, p := range rest {
			tmp, ok := written[p]
			if !ok {
				missing = append(missing, p)
				continue
			}
			co, err := readCheckout(filepath.Join(c.repo.Top, tmp), c.blobs[p], limit)
			if err != nil {
				return nil, err
			}
			files[p] = co
		}
		if len(missing) == 0 {
			break
		}
		said := "git wrote nothing"
		if ce != nil {
			said = cmp.Or(fatalLine(ce.Stderr), ce.Error())
		}
		files[missing[0]] = Checkout{Err: said}
		if ce == nil {
			for _, p := range missing[1:] {
				files[p] = Checkout{Err: said}
			}
			break
		}
		rest = missing[1:]
	}
	return files, nil
}

// ParseCheckoutTemp parses `git checkout-index --temp -z`: "<temp file>\t<path>"
// records, NUL-terminated; it maps each path to its temporary file.
func ParseCheckoutTemp(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for _, rec := range splitZ(b) {
		tmp, path, ok := strings.Cut(rec, "\t")
		if !ok || tmp == "" || path == "" || strings.ContainsAny(tmp, "/ ") {
			return nil, fmt.Errorf("checkout-index: malformed record %q", clip([]byte(rec)))
		}
		out[path] = tmp
	}
	return out, nil
}

// readCheckout reads a checked-out file, keeping its first limit bytes and
// hashing all of it as a blob, to tell whether it is the blob oid.
func readCheckout(path, oid string, limit int) (Checkout, error) {
	f, err := os.Open(path)
	if err != nil {
		return Checkout{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Checkout{}, err
	}
	var h hash.Hash = sha1.New()
	if len(oid) == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", fi.Size())
	keep := min(fi.Size(), int64(limit))
	data := make([]byte, keep)
	if _, err := io.ReadFull(f, data); err != nil {
		return Checkout{}, err
	}
	h.Write(data)
	n, err := io.Copy(h, bufio.NewReader(f))
	if err != nil {
		return Checkout{}, err
	}
	size := keep + n
	return Checkout{Data: data, Size: size, Same: size == fi.Size() && fmt.Sprintf("%x", h.Sum(nil)) == oid}, nil
}

func nulJoin(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// fatalLine is what git said last before it died ("fatal: …"), else the
// first line it wrote.
func fatalLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(lines[i], "fatal: "); ok {
			return msg
		}
	}
	return lines[0]
}
