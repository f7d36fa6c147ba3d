package gitx

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// BatchHeader is the line `git cat-file --batch` writes before an object's content.
type BatchHeader struct {
	OID     string
	Type    string
	Size    int64
	Missing bool
}

// ParseBatchHeader parses "<oid> <type> <size>" or "<name> missing".
func ParseBatchHeader(line string) (BatchHeader, error) {
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous"):
		return BatchHeader{OID: f[0], Missing: true}, nil
	case len(f) == 3:
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			break
		}
		return BatchHeader{OID: f[0], Type: f[1], Size: size}, nil
	}
	return BatchHeader{}, fmt.Errorf("cat-file: malformed header %q", line)
}

// lineCount counts lines the way an editor shows them: a last line without a
// newline still counts, so "a\nb" has 2 lines and the empty file 0.
type lineCount struct {
	n    int64
	last byte
	any  bool
}

func (c *lineCount) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.n += int64(bytes.Count(p, []byte{'\n'}))
		c.last, c.any = p[len(p)-1], true
	}
	return len(p), nil
}

func (c *lineCount) lines() int64 {
	if c.any && c.last != '\n' {
		return c.n + 1
	}
	return c.n
}

// CountLines counts the lines of data as the diff gate does.
func CountLines(data []byte) int64 {
	var c lineCount
	c.Write(data)
	return c.lines()
}

// BlobLines counts the lines of blobs with one `git cat-file --batch`, streaming
// each through a counter so that no blob is held in memory. (go-git would inflate
// a packed delta whole in memory, which a large file would push past the budget.)
func (r *Repo) BlobLines(ctx context.Context, oids []string) ([]int64, error) {
	args := []string{"cat-file", "--batch"}
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return nil, err
	}
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	p, err := start(cmd)
	if err != nil {
		return nil, err
	}
	counts, rerr := readCounts(bufio.NewReaderSize(stdout, 64<<10), len(oids))
	io.Copy(io.Discard, stdout)
	if err := p.Wait(); err != nil {
		return nil, commandError(ctx, args, err, stderr.String())
	}
	return counts, rerr
}

// readBatchHeader reads the next object's header from cat-file --batch.
func readBatchHeader(br *bufio.Reader) (BatchHeader, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return BatchHeader{}, fmt.Errorf("cat-file: %w", err)
	}
	return ParseBatchHeader(line)
}

func readCounts(out *bufio.Reader, n int) ([]int64, error) {
	counts := make([]int64, n)
	for i := range counts {
		h, err := readBatchHeader(out)
		if err != nil {
			return nil, err
		}
		if h.Missing {
			return nil, fmt.Errorf("cat-file: object %s is missing from the repository", h.OID)
		}
		var lc lineCount
		if _, err := io.CopyN(&lc, out, h.Size); err != nil {
			return nil, fmt.Errorf("cat-file: reading %s: %w", h.OID, err)
		}
		if b, err := out.ReadByte(); err != nil || b != '\n' {
			return nil, fmt.Errorf("cat-file: object %s is not followed by a newline", h.OID)
		}
		counts[i] = lc.lines()
	}
	return counts, nil
}
