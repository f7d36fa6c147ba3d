package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// At is the repository as seen from another of its working trees; GitDir is
// that tree's own when its .git file names it, else left empty (git finds it).
func (r *Repo) At(dir string) *Repo {
	c := *r
	c.Top, c.GitDir = dir, ""
	// the worktree's own git dir, when its .git says so plainly and it is
	// this repository's: HEAD is then read without a process
	if gd, ok := findGitDir(dir); ok && r.CommonDir != "" && commonDir(gd) == r.CommonDir {
		c.GitDir = gd
	}
	var env []string
	for _, kv := range r.env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" {
			env = append(env, kv)
		}
	}
	c.env = env
	return &c
}

// WithEnv is the repository with extra environment variables for git.
func (r *Repo) WithEnv(kv ...string) *Repo {
	c := *r
	c.env = append(append([]string{}, r.env...), kv...)
	return &c
}

// Worktree is one entry of git worktree list.
type Worktree struct {
	Path     string
	Head     string
	Branch   string // "refs/heads/main", or "" when detached
	Bare     bool
	Prunable bool
}

// Worktrees lists the repository's working trees.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := r.output(ctx, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	return ParseWorktrees(out), nil
}

// ParseWorktrees parses git worktree list --porcelain -z.
func ParseWorktrees(b []byte) []Worktree {
	var out []Worktree
	var cur *Worktree
	for _, f := range bytes.Split(b, []byte{0}) {
		line := string(f)
		switch {
		case line == "":
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		case strings.HasPrefix(line, "worktree "):
			cur = &Worktree{Path: line[len("worktree "):]}
		case cur == nil:
		case strings.HasPrefix(line, "HEAD "):
			cur.Head = line[len("HEAD "):]
		case strings.HasPrefix(line, "branch "):
			cur.Branch = line[len("branch "):]
		case line == "bare":
			cur.Bare = true
		case strings.HasPrefix(line, "prunable"):
			cur.Prunable = true
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// AddWorktree creates a working tree at path on a new branch at commit. It does
// not touch any other working tree.
func (r *Repo) AddWorktree(ctx context.Context, path, branch, commit string) error {
	_, err := r.output(ctx, "worktree", "add", "--quiet", "-b", branch, path, commit)
	return err
}

// RemoveWorktree removes a working tree; force discards its changes.
func (r *Repo) RemoveWorktree(ctx context.Context, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force", "--force") // twice: also when locked
	}
	if _, err := r.output(ctx, append(args, path)...); err != nil {
		if _, statErr := os.Stat(path); os.IsNotExist(statErr) {
			_, err = r.output(ctx, "worktree", "prune")
		}
		return err
	}
	return nil
}

// DeleteRef deletes ref if it still points at old.
func (r *Repo) DeleteRef(ctx context.Context, ref, old string) error {
	_, err := r.output(ctx, "update-ref", "-d", ref, old)
	return err
}

// UpdateRef moves ref from old to next ("" old: create it), with a reflog
// message; git's reference-transaction hook judges it.
func (r *Repo) UpdateRef(ctx context.Context, ref, next, old, reason string) error {
	args := []string{"update-ref", "-m", reason, ref, next}
	if old != "" {
		args = append(args, old)
	}
	_, err := r.output(ctx, args...)
	return err
}

// Dirty lists the changes in the working tree: staged, unstaged and, with
// untracked, new files git does not ignore (git status --porcelain -z lines).
func (r *Repo) Dirty(ctx context.Context, untracked bool) ([]string, error) {
	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=all"
	}
	// status refreshes the index, which would run the post-index-change
	// hook: not for a look
	out, err := r.output(ctx, slices.Concat(noHooks, []string{"status", "--porcelain=v1", "-z", "--ignore-submodules=none", mode})...)
	if err != nil {
		return nil, err
	}
	var lines []string
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := string(recs[i])
		if len(rec) < 4 {
			continue
		}
		lines = append(lines, rec)
		if rec[0] == 'R' || rec[0] == 'C' {
			i++ // the source path of a rename follows
		}
	}
	return lines, nil
}

// ChangedSince lists the files of the working tree (committed, staged, unstaged
// or new and not ignored) that differ from commit.
func (r *Repo) ChangedSince(ctx context.Context, commit string) ([]string, error) {
	tracked, err := r.output(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-relative", "--no-ext-diff", commit, "--")
	if err != nil {
		return nil, err
	}
	untracked, err := r.output(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	return append(splitZ(tracked), splitZ(untracked)...), nil
}

// Files lists the files of the working tree that git tracks or would track.
func (r *Repo) Files(ctx context.Context) ([]string, error) {
	out, err := r.output(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// AddAll stages every change of the working tree.
func (r *Repo) AddAll(ctx context.Context) error {
	_, err := r.output(ctx, "add", "-A", "--", ".")
	return err
}

// CommitTree writes a commit of tree with parents and message; no ref moves.
func (r *Repo) CommitTree(ctx context.Context, tree string, parents []string, message string) (string, error) {
	return r.CommitTreeSigned(ctx, tree, parents, message, false)
}

// CommitTreeSigned is CommitTree, signed with the user's key when sign is set
// (see sign: a signing program the repository names is refused).
func (r *Repo) CommitTreeSigned(ctx context.Context, tree string, parents []string, message string, sign bool) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return r.commitTree(ctx, append(args, "-F", "-"), message, sign)
}

// commitTree runs commit-tree with args and message on stdin: confined, or
// on the terminal with -S when sign is set.
func (r *Repo) commitTree(ctx context.Context, args []string, message string, sign bool) (string, error) {
	run := r.outputIn
	if sign {
		run, args = r.sign, append([]string{args[0], "-S"}, args[1:]...)
	}
	out, err := run(ctx, []byte(message), args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// MergeTree merges two commits without touching any working tree: the result's
// tree, or the paths that conflict.
func (r *Repo) MergeTree(ctx context.Context, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := r.output(ctx, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs)
	if exitCode(err) == 1 {
		fields := splitZ(out)
		if len(fields) == 0 {
			return "", nil, fmt.Errorf("merge-tree reported a conflict without naming it")
		}
		return "", fields[1:], nil
	}
	if err != nil {
		if strings.Contains(err.Error(), "unknown option") || strings.Contains(err.Error(), "usage:") {
			return "", nil, fmt.Errorf("git tdd merge needs git 2.38 or newer (git merge-tree --write-tree): %w", err)
		}
		return "", nil, err
	}
	fields := splitZ(out)
	if len(fields) == 0 {
		return "", nil, fmt.Errorf("merge-tree wrote no tree")
	}
	return fields[0], nil, nil
}

// MergeFastForward moves the checked-out branch to commit, updating its files;
// git refuses when that would overwrite a local change, or an ignored file
// (a .env the branch happens to track).
func (r *Repo) MergeFastForward(ctx context.Context, commit string) error {
	// the automatic maintenance a merge starts (git gc, detached) is left to
	// the user's own next command: git runs confined, and what it leaves
	// running is killed
	_, err := r.output(ctx, "-c", "maintenance.auto=false", "merge", "--ff-only", "--no-overwrite-ignore", "-q", commit)
	return err
}

// CountBeyond is the number of commits reachable from tips and not from base.
func (r *Repo) CountBeyond(ctx context.Context, tips []string, base string) (int, error) {
	args := append(append([]string{"rev-list", "--count"}, tips...), "--not", base, "--")
	out, err := r.output(ctx, args...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// SnapshotOn writes a commit holding the working tree as it is, untracked
// files included and the index's skip-worktree and assume-unchanged bits
// ignored, on parent (its HEAD; or, when HEAD names no commit because its
// branch was deleted, the last commit it held), and returns it; parent itself
// when nothing differs. The real index and the files are left as they were.
func (r *Repo) SnapshotOn(ctx context.Context, parent, message string) (string, error) {
	tree, err := r.WorktreeTree(ctx)
	if err != nil {
		return "", err
	}
	if parentTree, err := r.TreeOf(ctx, parent); err == nil && parentTree == tree {
		return parent, nil
	}
	return r.CommitTree(ctx, tree, []string{parent}, message)
}

// SetIndex makes the index hold tree, leaving the files as they are (git
// read-tree): what differs on disk then shows as uncommitted changes.
func (r *Repo) SetIndex(ctx context.Context, tree string) error {
	_, err := r.output(ctx, slices.Concat(wholeCheckout, []string{"read-tree", tree})...)
	return err
}

// RecentlyChanged lists the files the last commits of rev touched, under
// pathspecs (literal directories or files), the most recently changed first,
// each once; n bounds the commits read.
func (r *Repo) RecentlyChanged(ctx context.Context, rev string, n int, pathspecs []string) ([]string, error) {
	args := []string{"log", "-z", "--format=", "--name-only", "--no-renames", "--no-relative", "--no-show-signature", "--no-color", "--no-ext-diff",
		fmt.Sprintf("--max-count=%d", n), rev, "--"}
	for _, p := range pathspecs {
		args = append(args, ":(literal)"+p)
	}
	out, err := r.output(ctx, args...)
	if err != nil {
		return nil, err
	}
	return uniqueNames(out), nil
}

// uniqueNames are log -z --name-only's paths, each once, in the order given.
func uniqueNames(out []byte) []string {
	seen := map[string]bool{}
	var names []string
	for _, f := range splitZ(out) {
		if !seen[f] {
			seen[f] = true
			names = append(names, f)
		}
	}
	return names
}
