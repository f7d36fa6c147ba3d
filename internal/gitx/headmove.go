package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/confine"
)

// HeadMove moves the branch HEAD is on in steps, as one transaction of git
// update-ref --stdin, so that git starts while the caller still decides:
// StartHeadMove starts git, Prepare locks the branch where it must be and
// queues the move, Commit makes it; Abort, an error or the end of the
// caller's input leave the branch as it was. A gate starts it beside the
// commit it drafts, and commits it once the check after the run has passed.
type HeadMove struct {
	r        *Repo
	ctx      context.Context
	args     []string
	begun    time.Time
	proc     *confine.Proc
	in       io.WriteCloser
	out      *bufio.Reader
	stderr   bytes.Buffer
	prepared string // the commit Prepare queued
	ended    bool
	err      error
}

// StartHeadMove starts git for a move of HEAD recorded in the reflogs with
// message's subject, as git commit records one.
func (r *Repo) StartHeadMove(ctx context.Context, message string) (*HeadMove, error) {
	subject, _, _ := strings.Cut(message, "\n")
	m := &HeadMove{r: r, ctx: ctx, args: []string{"update-ref", "-m", "commit: " + subject, "--stdin", "-z"}, begun: time.Now()}
	cmd, err := r.command(ctx, m.args...)
	if err != nil {
		return nil, err
	}
	if m.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	m.out = bufio.NewReader(out)
	cmd.Stderr = &m.stderr
	// cancelled (Ctrl-C): the end of its input, on which git aborts and
	// removes its locks, where a kill would leave them for every later git
	cmd.Cancel = m.in.Close
	cmd.WaitDelay = 5 * time.Second
	if m.proc, err = start(cmd); err != nil {
		return nil, err
	}
	// a transaction: git aborts it at the end of its input unless committed;
	// its answer is read with the next, so that git starts meanwhile
	if err := m.send("start\x00"); err != nil {
		return nil, m.fail(err)
	}
	return m, nil
}

// send writes commands, then reads git's answers, one line for each of
// verbs: "<verb>: ok" (an update has none).
func (m *HeadMove) send(commands string, verbs ...string) error {
	if _, err := io.WriteString(m.in, commands); err != nil {
		return err
	}
	for _, verb := range verbs {
		line, err := m.out.ReadString('\n')
		if err != nil {
			return err
		}
		if line != verb+": ok\n" {
			return fmt.Errorf("git update-ref answered %q to %s", line, verb)
		}
	}
	return nil
}

// Prepare locks the branch HEAD is on, provided it is still at old, and
// queues its move to commit.
func (m *HeadMove) Prepare(old, commit string) error {
	if m.ended || m.prepared != "" {
		return errors.New("gitx: the move of HEAD was prepared or ended already")
	}
	if err := m.send("update HEAD\x00"+commit+"\x00"+old+"\x00prepare\x00", "start", "prepare"); err != nil {
		return m.fail(err)
	}
	m.prepared = commit
	return nil
}

// Commit moves HEAD as prepared.
func (m *HeadMove) Commit() error {
	if m.ended {
		return m.err
	}
	if m.prepared == "" {
		return m.fail(errors.New("gitx: the move of HEAD was not prepared"))
	}
	if err := m.ctx.Err(); err != nil {
		return m.fail(err)
	}
	if err := m.send("commit\x00", "commit"); err != nil {
		return m.fail(err)
	}
	// committed: what git says on its way out (a cancel) changes nothing
	m.end()
	m.err = nil
	return nil
}

// Abort leaves HEAD where it was, and waits for git to exit.
func (m *HeadMove) Abort() {
	if !m.ended {
		m.end()
	}
}

// end closes git's input, which ends its transaction (aborted unless
// committed), and waits for it.
func (m *HeadMove) end() error {
	m.ended = true
	m.in.Close()
	io.Copy(io.Discard, m.out)
	err := m.proc.Wait()
	trace(m.begun, m.args)
	if err != nil {
		m.err = m.movedError(commandError(m.ctx, m.args, err, m.stderr.String()))
	}
	return m.err
}

// fail ends git after err, and returns git's own error when it has one.
func (m *HeadMove) fail(err error) error {
	if m.ended {
		return m.err
	}
	if werr := m.end(); werr != nil {
		return werr
	}
	m.err = m.movedError(err)
	return m.err
}

func (m *HeadMove) movedError(err error) error {
	if m.ctx.Err() != nil {
		return m.ctx.Err() // interrupted: said as any interruption is
	}
	return fmt.Errorf("HEAD moved while git tdd ran, so nothing was committed: %w", err)
}
