package gitx

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SymbolicBranches lists the branches that are symbolic refs, with what each
// names ("" for a symbolic link, whose target is not a ref name). They are
// loose files under refs/heads (packed refs cannot be symbolic), read without
// a process: every commit's reference-transaction hook asks. Refs stored
// otherwise (reftable) are listed by git.
func (r *Repo) SymbolicBranches(ctx context.Context) (map[string]string, error) {
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return r.symbolicBranchesByGit(ctx)
	}
	out := map[string]string{}
	root := filepath.Join(r.CommonDir, "refs", "heads")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == root {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(r.CommonDir), path)
		name := filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			out[name] = ""
		case d.Type().IsRegular():
			data, err := readHead(path, 512)
			if err != nil {
				return err
			}
			if target, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
				out[name] = strings.TrimSpace(string(target))
			}
		}
		return nil
	})
	return out, err
}

// readHead reads at most n bytes from the start of a file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:k], err
}

func (r *Repo) symbolicBranchesByGit(ctx context.Context) (map[string]string, error) {
	data, err := r.output(ctx, "for-each-ref", "--format=%(refname)%00%(symref)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		name, target, _ := strings.Cut(line, "\x00")
		if target != "" {
			out[name] = target
		}
	}
	return out, nil
}
