package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/sandbox"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Call is a program that reads its input on stdin and answers on stdout: an
// agent (or gh). It runs confined (see package confine), with a timeout.
type Call struct {
	Argv    []string
	Dir     string
	Env     []string
	Stdin   []byte
	Timeout time.Duration
	Stderr  io.Writer // what it says on stderr, each line escaped; nil discards it
	Limit   int64     // stdout beyond this many bytes is an error; 0 is 64 MiB
	// Sandbox confines the program (an agent's); nil runs it as the user
	// (gh, or an agent the human ran with --no-sandbox).
	Sandbox *sandbox.Policy
	// Received, when set, is told the bytes of stdout so far as they come
	// (for a progress line); it is called on another goroutine.
	Received func(total int64)
}

// Capture runs a Call and returns its standard output. A non-zero exit, a
// timeout (it is stopped), output over the limit, or a process it left that
// could not be killed is an error.
func Capture(ctx context.Context, c Call) ([]byte, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("no command")
	}
	limit := c.Limit
	if limit == 0 {
		limit = 64 << 20
	}
	var err error
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin = bytes.NewReader(c.Stdin)
	out := &limitedBuffer{max: limit, received: c.Received}
	cmd.Stdout = out
	var stderr *escapedLines
	if c.Stderr != nil {
		// never the terminal itself: what it says is shown escaped
		stderr = &escapedLines{w: c.Stderr}
		cmd.Stderr = stderr
	}
	var box *sandbox.Wrapped
	if c.Sandbox != nil {
		if box, err = c.Sandbox.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	p, err := confine.Start(cmd)
	if box != nil {
		box.Started()
	}
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", strings.Join(c.Argv, " "), err)
	}
	exited := make(chan error, 1)
	go func() {
		err := p.Wait()
		if box != nil {
			// the helper's refusal is not the program's failure: it never ran
			if berr := box.Err(); berr != nil {
				err = fmt.Errorf("%s could not start in the sandbox: %w", c.Argv[0], berr)
			}
		}
		exited <- err
	}()
	timeout := time.NewTimer(c.Timeout)
	defer timeout.Stop()
	select {
	case err = <-exited:
	case <-timeout.C:
		p.Stop(2 * time.Second)
		<-exited
		return nil, fmt.Errorf("%s did not answer within %s; it was stopped", c.Argv[0], c.Timeout)
	case <-ctx.Done():
		p.Stop(2 * time.Second)
		<-exited
		return nil, ctx.Err()
	}
	if stderr != nil {
		stderr.Flush()
	}
	switch {
	case out.over:
		return nil, fmt.Errorf("%s answered more than %d bytes", c.Argv[0], limit)
	case err != nil:
		return out.Bytes(), fmt.Errorf("%s failed: %w", c.Argv[0], err)
	}
	return out.Bytes(), nil
}

// escapedLines writes each line escaped (term.Line): a program an agent
// controls cannot move the cursor or clear the screen through its stderr.
type escapedLines struct {
	w    io.Writer
	part []byte
}

func (e *escapedLines) Write(p []byte) (int, error) {
	e.part = append(e.part, p...)
	for {
		i := bytes.IndexByte(e.part, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintln(e.w, term.Line(strings.TrimSuffix(string(e.part[:i]), "\r"), 0))
		e.part = e.part[i+1:]
	}
	if len(e.part) > maxLine {
		e.Flush()
	}
	return len(p), nil
}

// maxLine is as much of a line without its end as is kept.
const maxLine = 64 << 10

// Flush writes what is left of a last line without its newline.
func (e *escapedLines) Flush() {
	if len(e.part) > 0 {
		fmt.Fprintln(e.w, term.Line(string(e.part), 0))
		e.part = nil
	}
}

// limitedBuffer keeps at most max bytes and notes that there were more. The
// buffer is a field, not embedded: an embedded bytes.Buffer would lend it
// ReadFrom, and io.Copy (as os/exec uses it) would then bypass Write's limit.
type limitedBuffer struct {
	buf      bytes.Buffer
	max      int64
	over     bool
	total    int64
	received func(total int64)
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if b.received != nil {
		b.received(b.total)
	}
	if int64(b.buf.Len()+len(p)) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes is what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }
