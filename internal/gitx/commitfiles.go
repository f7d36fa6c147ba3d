package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Var is `git var NAME`: GIT_EDITOR, GIT_PAGER, … as git itself would choose them.
func (r *Repo) Var(ctx context.Context, name string) (string, error) {
	out, err := r.output(ctx, "var", name)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// WriteBlobs stores each content as a blob, exactly as given (no clean filter,
// no line-end conversion: nothing the repository's configuration names is
// run), and returns their ids in order. One git process for them all.
func (r *Repo) WriteBlobs(ctx context.Context, contents [][]byte) ([]string, error) {
	if len(contents) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "git-tdd-blobs-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var paths bytes.Buffer
	for i, c := range contents {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, c, 0o600); err != nil {
			return nil, err
		}
		paths.WriteString(p + "\n")
	}
	out, err := r.outputIn(ctx, paths.Bytes(), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(contents) {
		return nil, fmt.Errorf("hash-object: %d ids for %d files", len(ids), len(contents))
	}
	return ids, nil
}

// TreeFiles lists the files of tree under dir, recursively.
func (r *Repo) TreeFiles(ctx context.Context, tree, dir string) (map[string]TreeEntry, error) {
	out, err := r.output(ctx, "--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", tree, "--", dir)
	if err != nil {
		return nil, err
	}
	return ParseLsTree(out)
}

// CommitOnHead commits tree with HEAD's commit parent as its parent ("" for
// the first commit), signed when sign is set, and moves HEAD to it only if
// HEAD is still parent. The index and the files are not touched.
func (r *Repo) CommitOnHead(ctx context.Context, parent, tree, message string, sign bool) (string, error) {
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	commit, err := r.CommitTreeSigned(ctx, tree, parents, message, sign)
	if err != nil {
		return "", err
	}
	old := parent
	if old == "" {
		old = strings.Repeat("0", len(commit)) // HEAD must still be unborn
	}
	subject, _, _ := strings.Cut(message, "\n")
	if err := r.UpdateRef(ctx, "HEAD", commit, old, "commit: "+subject); err != nil {
		return "", fmt.Errorf("%w: %w", ErrHeadMoved, err)
	}
	return commit, nil
}

// ErrHeadMoved is a checked update of HEAD that found another commit there.
var ErrHeadMoved = fmt.Errorf("HEAD moved while git tdd ran")

// SetIndexEntries makes the index's entries for these paths what entries say
// (a null id removes one), leaving every other staged change as it is.
// Another git command holding the index's lock is waited for, briefly.
func (r *Repo) SetIndexEntries(ctx context.Context, entries []RawEntry) error {
	var err error
	for wait := 10 * time.Millisecond; wait < 2*time.Second; wait *= 2 {
		_, err = r.outputIn(ctx, indexInfo(entries), "update-index", "-z", "--index-info")
		if err == nil || !strings.Contains(err.Error(), ".lock") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return err
}

// indexInfo is entries as update-index --index-info -z reads them: a null or
// empty new id removes the path.
func indexInfo(entries []RawEntry) []byte {
	var info bytes.Buffer
	for _, e := range entries {
		if IsNullOID(e.NewOID) {
			n := max(len(e.NewOID), len(e.OldOID), 40)
			fmt.Fprintf(&info, "0 %s\t%s\x00", strings.Repeat("0", n), e.Path)
		} else {
			fmt.Fprintf(&info, "%o %s\t%s\x00", e.NewMode, e.NewOID, e.Path)
		}
	}
	return info.Bytes()
}

// InProgress names the operation under way in this working tree (a merge, a
// rebase, …) during which HEAD must not be moved behind git's back; "" if none.
func (r *Repo) InProgress() string {
	for _, op := range [][2]string{{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase or am"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"}, {"BISECT_LOG", "bisect"}} {
		if _, err := os.Lstat(filepath.Join(r.GitDir, op[0])); err == nil {
			return op[1]
		}
	}
	return ""
}
