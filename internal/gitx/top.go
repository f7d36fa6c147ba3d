package gitx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// OpenTop opens the repository whose working tree's top level is the current
// directory, as it is when git runs a hook, without starting a process: every
// commit runs several hooks, and on a slow machine each git process costs
// milliseconds. Anything unusual (GIT_DIR set, no .git here, a bare repository)
// goes through Open and so through git itself.
func OpenTop(ctx context.Context) (*Repo, error) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" || os.Getenv("GIT_COMMON_DIR") != "" {
		return Open(ctx, ".")
	}
	top, err := os.Getwd()
	if err != nil {
		return Open(ctx, ".")
	}
	gitDir, ok := findGitDir(top)
	if !ok {
		return Open(ctx, ".")
	}
	return &Repo{Top: top, GitDir: gitDir, CommonDir: commonDir(gitDir), env: absoluteEnv(os.Environ())}, nil
}

// findGitDir reads <top>/.git: a directory, or a file "gitdir: <path>" (a linked
// worktree, a submodule). It reports false for anything it does not recognise.
func findGitDir(top string) (string, bool) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", false
	}
	dir := dotgit
	if fi.Mode().IsRegular() {
		data, err := os.ReadFile(dotgit)
		rest, found := bytes.CutPrefix(data, []byte("gitdir: "))
		if err != nil || !found {
			return "", false
		}
		dir = string(bytes.TrimRight(rest, "\r\n"))
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(top, dir)
		}
	} else if !fi.IsDir() {
		return "", false
	}
	if st, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return filepath.Clean(dir), true
}

// commonDir follows a worktree's commondir file to the repository's common dir.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	dir := string(bytes.TrimRight(data, "\r\n"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return filepath.Clean(dir)
}

// discover finds the repository whose working tree's top level is dir (an
// absolute path) without a git process, where git's own discovery could not
// answer otherwise: dir holds .git, the environment neither moves the
// repository nor passes settings (GIT_DIR, GIT_WORK_TREE, git -c …), the
// user owns dir and its git dirs (else safe.directory decides), and no
// configuration file git reads mentions a work tree (core.worktree,
// extensions.worktreeConfig) or an include, nor core.bare but as git writes
// it, false. ok false leaves the answer to git. Paths are resolved as git
// resolves them, symbolic links followed.
func discover(dir string, env []string) (r *Repo, ok bool) {
	probe := &Repo{env: env}
	for _, k := range append(slices.Clone(Located), "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT") {
		if probe.getenv(k) != "" {
			return nil, false
		}
	}
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, false
	}
	gitDir, ok := findGitDir(top)
	if !ok {
		return nil, false
	}
	r = &Repo{Top: top, GitDir: gitDir, CommonDir: commonDir(gitDir), env: env}
	for _, p := range []*string{&r.GitDir, &r.CommonDir} {
		if *p, err = filepath.EvalSymlinks(*p); err != nil {
			return nil, false
		}
	}
	for _, p := range []string{r.Top, r.GitDir, r.CommonDir} {
		if !ownedByUs(p) {
			return nil, false
		}
	}
	for _, f := range r.configFiles() {
		if !plainConfig(f) {
			return nil, false
		}
	}
	return r, true
}

// ownedByUs reports whether path is owned by the effective user.
func ownedByUs(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// plainConfig reports whether the configuration file at path (missing is
// fine) can say nothing about where the work tree is: no "worktree" and no
// "include" in it, in any case, and "bare" only in git's own line
// "bare = false". Unsure is no.
func plainConfig(path string) bool {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || mentions(data, []string{"worktree", "include"}) {
		return false
	}
	for _, line := range bytes.Split(bytes.ToLower(data), []byte("\n")) {
		if bytes.Contains(line, []byte("bare")) && string(bytes.TrimSpace(line)) != "bare = false" {
			return false
		}
	}
	return true
}
