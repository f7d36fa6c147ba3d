package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Call is a program that reads its input on stdin and answers on stdout: an
// agent. It runs in its own process group, with a timeout.
type Call struct {
	Argv    []string
	Dir     string
	Env     []string
	Stdin   []byte
	Timeout time.Duration
	Stderr  io.Writer // what it says on stderr; nil discards it
	Limit   int64     // stdout beyond this many bytes is an error; 0 is 64 MiB
}

// Capture runs a Call and returns its standard output. A non-zero exit, a
// timeout (the whole group is stopped) or output over the limit is an error.
func Capture(ctx context.Context, c Call) ([]byte, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("no command")
	}
	limit := c.Limit
	if limit == 0 {
		limit = 64 << 20
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin = bytes.NewReader(c.Stdin)
	out := &limitedBuffer{max: limit}
	cmd.Stdout = out
	cmd.Stderr = c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running %s: %w", strings.Join(c.Argv, " "), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timeout := time.NewTimer(c.Timeout)
	defer timeout.Stop()
	var err error
	select {
	case err = <-exited:
	case <-timeout.C:
		stopGroup(cmd, exited)
		return nil, fmt.Errorf("%s did not answer within %s; it was stopped", c.Argv[0], c.Timeout)
	case <-ctx.Done():
		stopGroup(cmd, exited)
		return nil, ctx.Err()
	}
	// what it started in the background goes with it
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	switch {
	case out.over:
		return nil, fmt.Errorf("%s answered more than %d bytes", c.Argv[0], limit)
	case err != nil:
		return out.Bytes(), fmt.Errorf("%s failed: %w", c.Argv[0], err)
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps at most max bytes and notes that there were more. The
// buffer is a field, not embedded: an embedded bytes.Buffer would lend it
// ReadFrom, and io.Copy (as os/exec uses it) would then bypass Write's limit.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if int64(b.buf.Len()+len(p)) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes is what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }
