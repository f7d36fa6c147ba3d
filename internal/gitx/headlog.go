package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// HeadLog lists the commits the working tree's HEAD has pointed at, newest
// first. git reflog cannot read the log of a HEAD that names no commit (its
// branch deleted under it): then the log file itself is read, so that what
// the worktree held is still known.
func (r *Repo) HeadLog(ctx context.Context) ([]string, error) {
	if log, err := r.Reflog(ctx); err == nil {
		return log, nil
	}
	out, err := r.output(ctx, "rev-parse", "--path-format=absolute", "--git-path", "logs/HEAD")
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(strings.TrimSuffix(string(out), "\n"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseReflog(b), nil
}

// ParseReflog reads a reflog file ("<old> <new> <who> <when>\t<message>"
// lines, oldest first): the commits it names, newest first, each once,
// without the null id. A line it cannot read is skipped.
func ParseReflog(b []byte) []string {
	var lines [][2]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) < 3 || !isObjectID(f[0]) || !isObjectID(f[1]) {
			continue
		}
		lines = append(lines, [2]string{f[0], f[1]})
	}
	var out []string
	seen := map[string]bool{}
	for i := len(lines) - 1; i >= 0; i-- {
		for _, id := range []string{lines[i][1], lines[i][0]} {
			if !seen[id] && !IsNullOID(id) {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// isObjectID reports whether s is a full object id, SHA-1 or SHA-256, in
// lower-case hex.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
