package gitx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
