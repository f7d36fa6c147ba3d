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
	"strings"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
)

// HooksDir is where git looks for hooks: core.hooksPath when set, shared by every
// worktree.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	out, err := r.output(ctx, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// Branch returns the full name of the branch HEAD is on ("refs/heads/main"), or ""
// when HEAD is detached.
func (r *Repo) Branch(ctx context.Context) (string, error) {
	if b, ok := r.branchInProcess(); ok {
		return b, nil
	}
	out, err := r.output(ctx, "symbolic-ref", "-q", "HEAD")
	if exitCode(err) == 1 {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// ConfigValue reads one configuration value as git resolves it; ok is false
// when it is not set.
func (r *Repo) ConfigValue(ctx context.Context, key string) (value string, ok bool, err error) {
	out, err := r.output(ctx, "config", "--get", key)
	if exitCode(err) == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(string(out), "\n"), true, nil
}

// Exclude makes sure pattern is in the repository's info/exclude (shared by
// every worktree), so that git ignores what it matches.
func (r *Repo) Exclude(pattern string) error {
	path := filepath.Join(r.CommonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	line := pattern + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line = "\n" + line
	}
	if _, err := f.WriteString("# git tdd's temporary files\n" + line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ConfigValues reads every value of a multi-valued configuration key.
func (r *Repo) ConfigValues(ctx context.Context, key string) ([]string, error) {
	out, err := r.output(ctx, "config", "-z", "--get-all", key)
	if exitCode(err) == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// Reflog lists the commits HEAD of this working tree has pointed at, newest
// first (a linked worktree has a HEAD reflog of its own).
func (r *Repo) Reflog(ctx context.Context) ([]string, error) {
	out, err := r.output(ctx, "reflog", "show", "--no-abbrev", "--format=%H", "HEAD", "--")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// Independent reduces commits to those none of the others reaches.
func (r *Repo) Independent(ctx context.Context, commits []string) ([]string, error) {
	if len(commits) < 2 {
		return commits, nil
	}
	out, err := r.output(ctx, append([]string{"merge-base", "--independent"}, commits...)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// HeadBranch returns the commit HEAD points at and the full name of its branch
// ("" when HEAD is detached), with one process.
func (r *Repo) HeadBranch(ctx context.Context) (commit, branch string, err error) {
	if c, b, found := r.headInProcess(); found {
		return c, b, nil
	}
	out, err := r.output(ctx, "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
	if err != nil {
		return "", "", err
	}
	f, ok := splitRevParse(out, 2)
	if !ok {
		return "", "", fmt.Errorf("rev-parse: unexpected answer %q", clip(out))
	}
	if f[1] != "HEAD" {
		branch = f[1]
	}
	return f[0], branch, nil
}

// CommitHeader is what a commit object says about its content and history.
type CommitHeader struct {
	ID      string
	Tree    string
	Parents []string
	Message string
}

// Commits reads commit objects with one `git cat-file --batch`, by id or by any
// revision git understands; a name that does not resolve is left out.
func (r *Repo) Commits(ctx context.Context, ids ...string) (map[string]CommitHeader, error) {
	out := map[string]CommitHeader{}
	if len(ids) == 0 {
		return out, nil
	}
	if found, ok := r.commitsInProcess(ids); ok {
		return found, nil
	}
	args := []string{"cat-file", "--batch"}
	data, err := r.outputIn(ctx, []byte(strings.Join(ids, "\n")+"\n"), args...)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	for _, id := range ids {
		h, err := readBatchHeader(br)
		if err != nil {
			return nil, err
		}
		if h.Missing {
			continue
		}
		if h.Type != "commit" {
			return nil, fmt.Errorf("%s is not a commit", id)
		}
		body := make([]byte, h.Size+1)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, fmt.Errorf("cat-file: %w", err)
		}
		c, err := ParseCommit(body[:h.Size])
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", id, err)
		}
		c.ID = h.OID
		out[id] = c
	}
	return out, nil
}

// ParseCommit reads the tree, parents and message of a raw commit object.
func ParseCommit(b []byte) (CommitHeader, error) {
	var c CommitHeader
	head, msg, _ := bytes.Cut(b, []byte("\n\n"))
	for _, line := range bytes.Split(head, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("tree ")):
			c.Tree = string(line[5:])
		case bytes.HasPrefix(line, []byte("parent ")):
			c.Parents = append(c.Parents, string(line[7:]))
		}
	}
	if c.Tree == "" {
		return c, fmt.Errorf("no tree")
	}
	c.Message = string(msg)
	return c, nil
}

// IsAncestor reports whether a is an ancestor of b (or the same commit). git,
// not go-git: its commit walk is 20× slower (BenchmarkIsAncestorGoGit).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.output(ctx, "merge-base", "--is-ancestor", a, b)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, err
}

// ReachableFrom reports whether commit is reachable from the refs a rev-list
// option selects ("--all", "--remotes"); git, as for IsAncestor.
func (r *Repo) ReachableFrom(ctx context.Context, commit string, refs ...string) (bool, error) {
	// rev-list C --not --all lists nothing when C is reachable from one of them
	out, err := r.output(ctx, append([]string{"rev-list", "-n1", commit, "--not"}, refs...)...)
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}

// RefValue is what a full ref name holds now; ok is false when there is no
// such ref. In a reference-transaction hook's prepared state, that is the
// value before the update.
func (r *Repo) RefValue(ctx context.Context, ref string) (id string, ok bool, err error) {
	if !strings.HasPrefix(ref, "refs/") {
		return "", false, fmt.Errorf("not a full ref name: %q", ref)
	}
	out, err := r.output(ctx, "rev-parse", "--verify", "-q", ref)
	if exitCode(err) == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

// TrailedCommit is a commit on a first-parent chain with the values of the
// trailers asked for, and its signature when it was checked.
type TrailedCommit struct {
	ID, Tree, Subject string
	Parents           []string
	Trailers          map[string][]string // by key, as asked for
	// Signature is git's %G? for the commit: G good (by a listed key), U good
	// by a key that is not listed, N none, B bad, E cannot be checked, X/Y
	// expired, R revoked; "" when signatures were not checked.
	Signature string
	Signer    string // the principal of a good signature (%GS)
	Key       string // the key's fingerprint (%GK)
}

// FirstParentTrailers lists the commits of a range along the first parent,
// newest first, with the values of the trailers keys (matched without case)
// in each message's final trailer block as commitmsg.FinalTrailers finds
// them: git's rules with git's defaults, read in process from the commit
// objects. git's own parser (%(trailers)) takes core.commentChar,
// trailer.separators and trailer.<name>.key from the repository's
// configuration, which an agent writes, and each of them can hide a trailer
// from it (attack_trailer_config). One git log lists the chain, faster than
// go-git's walk (BenchmarkVerifyWalkGoGit).
func (r *Repo) FirstParentTrailers(ctx context.Context, rangeSpec string, keys ...string) ([]TrailedCommit, error) {
	commits, err := r.firstParent(ctx, rangeSpec, "")
	if err != nil || len(keys) == 0 || len(commits) == 0 {
		return commits, err
	}
	ids := make([]string, len(commits))
	for i, c := range commits {
		ids[i] = c.ID
	}
	found, err := r.Commits(ctx, ids...)
	if err != nil {
		return nil, err
	}
	for i := range commits {
		c, ok := found[commits[i].ID]
		if !ok {
			return nil, fmt.Errorf("commit %s is missing", commits[i].ID)
		}
		commits[i].Trailers = commitmsg.Values(c.Message, keys...)
	}
	return commits, nil
}

// FirstParentSigned lists the commits of a range along the first parent,
// newest first, with each commit's SSH signature checked against an OpenSSH
// allowed-signers file, as git verify-commit does.
func (r *Repo) FirstParentSigned(ctx context.Context, rangeSpec, allowedSigners string) ([]TrailedCommit, error) {
	return r.firstParent(ctx, rangeSpec, allowedSigners)
}

func (r *Repo) firstParent(ctx context.Context, rangeSpec, allowedSigners string) ([]TrailedCommit, error) {
	// every field ends in a NUL, which no field can hold: a subject is text
	// an agent may write, and must not be able to end a record and start one
	// of its own
	format := "%H%x00%T%x00%P%x00%s%x00"
	// rev-list never checks signatures (its %G? is always N): git log does,
	// told not to print them on its own (log.showSignature)
	args := []string{"rev-list", "--first-parent", "--no-commit-header"}
	if allowedSigners != "" {
		// git asks its signing program whether a signature is good: one
		// that .git/config names could call any signature good
		s, err := r.Signing(ctx)
		if err != nil {
			return nil, err
		}
		if s.Foreign != nil {
			return nil, s.Foreign
		}
		format += "%G?%x00%GS%x00%GK%x00"
		args = []string{"-c", "gpg.ssh.allowedSignersFile=" + allowedSigners, "log", "--first-parent", "--no-show-signature", "--no-color"}
	}
	args = append(args, "--format="+format, rangeSpec, "--")
	out, err := r.output(ctx, args...)
	if err != nil {
		return nil, err
	}
	return ParseTrailedCommits(out, allowedSigners != "")
}

// ParseTrailedCommits parses firstParent's records: id, tree, parents,
// subject, then the signature's three fields when signed is set; every field
// ends in a NUL, and git puts a line feed between records.
func ParseTrailedCommits(b []byte, signed bool) ([]TrailedCommit, error) {
	n := 4
	if signed {
		n = 7
	}
	f := strings.Split(string(b), "\x00")
	if last := f[len(f)-1]; strings.Trim(last, "\n") != "" {
		return nil, fmt.Errorf("rev-list: malformed output %q", clip([]byte(last)))
	}
	f = f[:len(f)-1]
	if len(f)%n != 0 {
		return nil, fmt.Errorf("rev-list: %d fields, not records of %d", len(f), n)
	}
	var out []TrailedCommit
	for i := 0; i < len(f); i += n {
		rec := f[i : i+n]
		c := TrailedCommit{ID: strings.TrimPrefix(rec[0], "\n"), Tree: rec[1], Parents: strings.Fields(rec[2]), Subject: rec[3], Trailers: map[string][]string{}}
		if !isHex([]byte(c.ID)) || !isHex([]byte(c.Tree)) {
			return nil, fmt.Errorf("rev-list: malformed record %q", clip([]byte(strings.Join(rec, " "))))
		}
		for _, p := range c.Parents {
			if !isHex([]byte(p)) {
				return nil, fmt.Errorf("rev-list: malformed parent %q", clip([]byte(p)))
			}
		}
		if signed {
			c.Signature, c.Signer, c.Key = rec[4], rec[5], rec[6]
		}
		out = append(out, c)
	}
	return out, nil
}

// CheckBranchName refuses a name git would not accept for a branch.
func (r *Repo) CheckBranchName(ctx context.Context, name string) error {
	if strings.HasPrefix(name, "-") {
		return fmt.Errorf("invalid branch name %q", name)
	}
	if _, err := r.output(ctx, "check-ref-format", "--branch", name); err != nil {
		return fmt.Errorf("invalid branch name %q", name)
	}
	return nil
}

// ConfigScope is where the value of key in effect comes from: "local",
// "worktree", "global", "system" or "command" (git config --show-scope).
func (r *Repo) ConfigScope(ctx context.Context, key string) (scope string, ok bool, err error) {
	out, err := r.output(ctx, "config", "--show-scope", "--get", key)
	if exitCode(err) == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	scope, _, _ = strings.Cut(string(out), "\t")
	return scope, true, nil
}
