package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// noHooks keeps hooks from running in git's own bookkeeping: a hook is a
// program anyone with a shell can write, and the gates must not run it between
// a check and what the check decided.
var noHooks = []string{"-c", "core.hooksPath=" + os.DevNull}

// Staged is the working tree staged, as `git add -A` stages it (untracked
// files included, ignored ones not), into a private copy of the index, and
// written as a tree. The real index and the files are left as they were.
type Staged struct {
	Tree  string
	repo  *Repo // with GIT_INDEX_FILE set to the copy
	index string
}

// Stage stages the working tree into a copy of the index, whose stat data
// saves hashing the files that did not change.
func (r *Repo) Stage(ctx context.Context) (*Staged, error) {
	index, err := r.indexPath(ctx)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(index), "index.git-tdd-*")
	if err != nil {
		return nil, err
	}
	s := &Staged{repo: r.WithEnv("GIT_INDEX_FILE=" + tmp.Name()), index: tmp.Name()}
	if err := copyIndex(tmp, index); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.unflag(ctx); err != nil {
		s.Close()
		return nil, err
	}
	// a private index: git's post-index-change hook, a program anyone can
	// write, has nothing to hear about it
	if _, err := s.repo.output(ctx, slices.Concat(noHooks, []string{"add", "-A", "--", "."})...); err != nil {
		s.Close()
		return nil, err
	}
	if s.Tree, err = s.repo.WriteTree(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// copyIndex copies the index at path (none: nothing) into dst, which it
// closes, dated as the index: git takes an entry whose file changed in the
// second the index was written for one that may have changed since (racily
// clean) and reads the file again; a copy dated now made a file changed in
// that second, at the same size, look unchanged, and its old blob staged.
func copyIndex(dst *os.File, path string) error {
	src, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return dst.Close()
	}
	if err != nil {
		dst.Close()
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err == nil {
		_, err = io.Copy(dst, src)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(dst.Name(), fi.ModTime(), fi.ModTime())
}

// unflag clears, in the private index, the assume-unchanged and skip-worktree
// bits of the files that are on disk: with them, git add does not look at the
// file, and what is staged would not be what is there. A skip-worktree file
// that is not on disk (outside a sparse checkout) keeps its bit.
func (s *Staged) unflag(ctx context.Context) error {
	assumed, skipped, err := s.flagged(ctx)
	if err != nil {
		return err
	}
	skipped = slices.DeleteFunc(skipped, func(p string) bool {
		_, err := os.Lstat(filepath.Join(s.repo.Top, filepath.FromSlash(p)))
		return err != nil
	})
	for flag, paths := range map[string][]string{"--no-assume-unchanged": assumed, "--no-skip-worktree": skipped} {
		if len(paths) == 0 {
			continue
		}
		// one flag a call: update-index applies only one of them
		if _, err := s.repo.outputIn(ctx, []byte(strings.Join(paths, "\x00")+"\x00"), slices.Concat(noHooks, []string{"update-index", flag, "-z", "--stdin"})...); err != nil {
			return err
		}
	}
	return nil
}

// flagged are the private index's entries flagged assume-unchanged and
// skip-worktree, read in process when the index allows it.
func (s *Staged) flagged(ctx context.Context) (assumed, skipped []string, err error) {
	if info, ok := s.repo.readIndex(ctx); ok {
		return info.Assumed, info.Skipped, nil
	}
	out, err := s.repo.output(ctx, "ls-files", "-v", "-z")
	if err != nil {
		return nil, nil, err
	}
	assumed, skipped = FlaggedEntries(out)
	return assumed, skipped, nil
}

// FlaggedEntries reads `git ls-files -v -z`: the paths marked assume-unchanged
// (a lower-case tag) and skip-worktree (tag S).
func FlaggedEntries(b []byte) (assumed, skipped []string) {
	for _, rec := range splitZ(b) {
		if len(rec) < 3 || rec[1] != ' ' {
			continue
		}
		tag, p := rec[0], rec[2:]
		switch {
		case tag == 'S' || tag == 's':
			skipped = append(skipped, p)
			if tag == 's' {
				assumed = append(assumed, p)
			}
		case tag >= 'a' && tag <= 'z':
			assumed = append(assumed, p)
		}
	}
	return assumed, skipped
}

// Changed reports whether the working tree differs from what was staged: a
// file added, removed or changed since.
func (s *Staged) Changed(ctx context.Context) (bool, error) {
	out, err := s.repo.output(ctx, slices.Concat(noHooks, []string{"add", "-A", "--dry-run", "--", "."})...)
	return len(bytes.TrimSpace(out)) > 0, err
}

// Close removes the private index.
func (s *Staged) Close() {
	if s.index != "" {
		os.Remove(s.index)
	}
}

// WorktreeTree is the tree of the working tree as Stage writes it.
func (r *Repo) WorktreeTree(ctx context.Context) (string, error) {
	s, err := r.Stage(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Tree, nil
}

// indexPath is the index of this working tree, found from its .git without a
// process where it can be.
func (r *Repo) indexPath(ctx context.Context) (string, error) {
	if dir, ok := findGitDir(r.Top); ok {
		return filepath.Join(dir, "index"), nil
	}
	out, err := r.output(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// ChangedBlobs lists the paths whose blob differs between two trees (no rename
// detection: a rename is a deletion and an addition).
func (r *Repo) ChangedBlobs(ctx context.Context, a, b string) ([]RawEntry, error) {
	if a == b {
		return nil, nil
	}
	if entries, ok := r.changedBlobsInProcess(a, b); ok {
		return entries, nil // a tree just staged, and a recent fork point, are loose
	}
	out, err := r.output(ctx, "diff-tree", "-r", "-z", "--raw", "--no-abbrev", "--no-renames", "--no-relative", a, b)
	if err != nil {
		return nil, err
	}
	return ParseRaw(out)
}

// Ignored lists what git ignores in the working tree: files, and directories
// (with a trailing "/") that are ignored as a whole.
func (r *Repo) Ignored(ctx context.Context) ([]string, error) {
	out, err := r.output(ctx, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--no-empty-directory")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// Blobs reads objects by id with one `git cat-file --batch` (by id only: the
// batch protocol is line-based, and a path may hold a newline); what does not
// exist is left out of the map.
func (r *Repo) Blobs(ctx context.Context, names []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(names) == 0 {
		return out, nil
	}
	if found, ok := r.blobsInProcess(names); ok {
		return found, nil // blobs just staged are loose: no process
	}
	data, err := r.outputIn(ctx, []byte(strings.Join(names, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	for _, n := range names {
		h, err := readBatchHeader(br)
		if err != nil {
			return nil, err
		}
		if h.Missing {
			continue
		}
		body := make([]byte, h.Size+1)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, fmt.Errorf("cat-file: %w", err)
		}
		out[n] = body[:h.Size]
	}
	return out, nil
}

// SignsCommits reports whether commit.gpgSign asks for signed commits.
func (r *Repo) SignsCommits(ctx context.Context) bool {
	out, _ := r.output(ctx, "config", "--type=bool", "--get", "commit.gpgsign")
	return strings.TrimSpace(string(out)) == "true"
}

// CommitStaged writes the commit of the staged tree on parent with message
// (signed when sign); nothing refers to it until MoveHead moves HEAD to it.
// The user's commit hooks do not run.
func (r *Repo) CommitStaged(ctx context.Context, parent string, s *Staged, message string, sign bool) (string, error) {
	return r.commitTree(ctx, []string{"commit-tree", s.Tree, "-p", parent, "-F", "-"}, message, sign)
}

// MoveHead moves the branch HEAD is on from old to commit (CommitStaged's,
// with its message), only if HEAD is still old; the staged index then becomes
// the real one (git's lock protocol), so that the commit is not shown as
// staged.
func (r *Repo) MoveHead(ctx context.Context, old, commit string, s *Staged, message string) error {
	m, err := r.StartHeadMove(ctx, message)
	if err != nil {
		return err
	}
	if err := m.Prepare(old, commit); err != nil {
		return err
	}
	return r.FinishHeadMove(ctx, m, s)
}

// FinishHeadMove commits a prepared move of HEAD, as MoveHead does.
func (r *Repo) FinishHeadMove(ctx context.Context, m *HeadMove, s *Staged) error {
	if err := m.Commit(); err != nil {
		return err
	}
	// committed: an interruption now must not leave the index behind it
	ctx = context.WithoutCancel(ctx)
	if err := r.installIndex(ctx, s); err != nil {
		if _, rerr := r.output(ctx, "reset", "-q"); rerr != nil {
			return fmt.Errorf("committed %s, but could not update the index: %w", m.prepared, err)
		}
	}
	return nil
}

// installIndex makes the staged index the working tree's: linked as
// index.lock, which fails while another git command holds the lock, then
// renamed over the index, as git itself does.
func (r *Repo) installIndex(ctx context.Context, s *Staged) error {
	index, err := r.indexPath(ctx)
	if err != nil {
		return err
	}
	if err := os.Chmod(s.index, 0o644); err != nil {
		return err
	}
	lock := index + ".lock"
	if err := os.Link(s.index, lock); err != nil {
		return err
	}
	if err := os.Rename(lock, index); err != nil {
		os.Remove(lock)
		return err
	}
	return nil
}

// wholeCheckout is a checkout of every file: the repository's sparse-checkout
// settings (shared by every worktree, and anyone's to write) do not apply.
var wholeCheckout = slices.Concat(noHooks, []string{"-c", "core.sparseCheckout=false", "-c", "core.sparseCheckoutCone=false", "-c", "index.sparse=false"})

// AddDetachedWorktree makes a new working tree at path with HEAD detached at
// commit and nothing checked out yet (CheckoutTree fills it), without hooks.
func (r *Repo) AddDetachedWorktree(ctx context.Context, path, commit string) error {
	_, err := r.output(ctx, slices.Concat(wholeCheckout, []string{"worktree", "add", "--quiet", "--no-checkout", "--detach", path, commit})...)
	return err
}

// CheckoutTree makes the working tree and index hold exactly tree, every file
// of it, HEAD unmoved: files that tree lacks are removed, untracked ones kept.
func (r *Repo) CheckoutTree(ctx context.Context, tree string) error {
	_, err := r.output(ctx, slices.Concat(wholeCheckout, []string{"read-tree", "-u", "--reset", tree})...)
	return err
}

// OverlayTree writes the tree of base with entries applied: each path gets the
// entry's new blob and mode, or is removed where it has none.
func (r *Repo) OverlayTree(ctx context.Context, base string, entries []RawEntry) (string, error) {
	f, err := os.CreateTemp("", "git-tdd-index-*")
	if err != nil {
		return "", err
	}
	f.Close()
	os.Remove(f.Name()) // read-tree creates it
	defer os.Remove(f.Name())
	tmp := r.WithEnv("GIT_INDEX_FILE=" + f.Name())
	if _, err := tmp.output(ctx, "read-tree", base); err != nil {
		return "", err
	}
	if _, err := tmp.outputIn(ctx, indexInfo(entries), "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	return tmp.WriteTree(ctx)
}

// TreeEntry is one entry of a tree.
type TreeEntry struct {
	Mode uint32
	Type string // blob, tree or commit
	OID  string
	Path string
}

// LsTree looks paths up in tree (exactly those paths, not patterns, and
// without recursing into directories); a path that is not there is left out.
func (r *Repo) LsTree(ctx context.Context, tree string, paths []string) (map[string]TreeEntry, error) {
	if len(paths) == 0 {
		return map[string]TreeEntry{}, nil
	}
	out, err := r.output(ctx, append([]string{"--literal-pathspecs", "ls-tree", "-z", "--full-tree", tree, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	return ParseLsTree(out)
}

// ParseLsTree parses `git ls-tree -z`: "<mode> <type> <oid>\t<path>" records.
func ParseLsTree(b []byte) (map[string]TreeEntry, error) {
	out := map[string]TreeEntry{}
	for _, rec := range splitZ(b) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("ls-tree: malformed record %q", clip([]byte(rec)))
		}
		mode, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("ls-tree: malformed mode in %q", clip([]byte(rec)))
		}
		out[path] = TreeEntry{Mode: uint32(mode), Type: f[1], OID: f[2], Path: path}
	}
	return out, nil
}

// RestorePaths puts paths back as tree has them: the file's content from tree,
// or, for a path tree lacks, no file.
func (r *Repo) RestorePaths(ctx context.Context, tree string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	have, err := r.LsTree(ctx, tree, paths)
	if err != nil {
		return err
	}
	var back []string
	for _, p := range paths {
		if _, ok := have[p]; ok {
			back = append(back, p)
		} else if err := os.Remove(filepath.Join(r.Top, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(back) == 0 {
		return nil
	}
	_, err = r.outputIn(ctx, []byte(strings.Join(back, "\x00")+"\x00"),
		slices.Concat(noHooks, []string{"--literal-pathspecs", "checkout", tree, "--pathspec-from-file=-", "--pathspec-file-nul"})...)
	return err
}
