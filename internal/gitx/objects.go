package gitx

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Head returns the commit HEAD points at; ok is false on an unborn branch.
func (r *Repo) Head(ctx context.Context) (commit string, ok bool, err error) {
	if c, _, found := r.headInProcess(); found {
		return c, true, nil
	}
	out, err := r.output(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if exitCode(err) == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

// ErrUnmerged means the index has conflicts, so it has no tree to review.
var ErrUnmerged = errors.New("the index has unmerged paths; resolve the conflicts and stage the result first")

// WriteTree writes the index (GIT_INDEX_FILE when git set it, as in hooks) as a
// tree and returns its id: exactly the content a commit would record.
func (r *Repo) WriteTree(ctx context.Context) (string, error) {
	if path, err := r.indexFile(ctx); err == nil {
		if tree, ok := r.writeTreeInProcess(path); ok {
			return tree, nil
		}
	}
	out, err := r.output(ctx, "write-tree")
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "unmerged") {
			return "", ErrUnmerged
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// EmptyTree is the id of the empty tree in this repository's object format.
func (r *Repo) EmptyTree(ctx context.Context) (string, error) {
	out, err := r.output(ctx, "hash-object", "-t", "tree", "/dev/null")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ResolveCommit resolves rev to a commit id.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	return r.resolve(ctx, rev, "commit")
}

// TreeOf resolves rev to a tree id.
func (r *Repo) TreeOf(ctx context.Context, rev string) (string, error) {
	return r.resolve(ctx, rev, "tree")
}

func (r *Repo) resolve(ctx context.Context, rev, kind string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("invalid revision %q", rev)
	}
	out, err := r.output(ctx, "rev-parse", "--verify", "-q", rev+"^{"+kind+"}")
	if exitCode(err) == 1 {
		return "", fmt.Errorf("unknown revision %q", rev)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// MergeBase returns the best common ancestor of a and b.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	if base, ok := r.mergeBaseInProcess(a, b); ok {
		return base, nil // a branch whose base has not moved, in loose commits
	}
	out, err := r.output(ctx, "merge-base", a, b)
	if exitCode(err) == 1 {
		return "", fmt.Errorf("%s and %s have no common ancestor", a, b)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// FileAt returns the content of path in rev's tree; ok is false when it is not there.
func (r *Repo) FileAt(ctx context.Context, rev, path string) (data []byte, ok bool, err error) {
	if data, ok, known := r.fileInProcess(rev, path); known {
		return data, ok, nil
	}
	out, err := r.output(ctx, "cat-file", "blob", rev+":"+path)
	if exitCode(err) == 128 {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}
