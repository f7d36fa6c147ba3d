package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// HelperCommand is the hidden command that git-tdd runs itself as to confine
// a program (see Helper). It is in no help and no completion.
const HelperCommand = "__sandbox-exec"

// Wrapped is a command rewritten to start through the helper.
type Wrapped struct {
	policy, report *os.File // the helper's ends, which this process closes once it started
	reply          *os.File // this process's end of the report pipe
	// before Landlock ABI 6: the supervisor of the program's signals, and
	// the helper's end of its socket (closed with the others)
	supervisor *Supervisor
	supervised *os.File
}

// Wrap rewrites cmd, already set up (Path or Args, Dir, Env, standard files,
// ExtraFiles), to run confined by p: it starts git-tdd's helper, which reads
// p, the program and its environment from a pipe added to ExtraFiles,
// restricts itself and execs the program, as the same process. The program is
// looked up in the PATH of its own environment. Wrap refuses (exit 2, naming
// --no-sandbox) where this machine cannot enforce p. cmd is then started as
// any command, with confine.Start or otherwise; call Started once it has
// started or failed to, and Err once it has exited.
func (p Policy) Wrap(cmd *exec.Cmd) (*Wrapped, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has already started")
	}
	if len(cmd.Args) == 0 {
		return nil, errors.New("sandbox: the command has no arguments")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	st, err := Probe()
	if err != nil {
		return nil, err
	}
	if err := st.Check(p); err != nil {
		return nil, err
	}
	exe, err := self()
	if err != nil {
		return nil, err
	}
	m := message{Policy: p, Path: program(cmd), Args: cmd.Args, Env: cmd.Environ()}
	data, err := m.encode()
	if err != nil {
		return nil, err
	}
	w, err := newWrapped(data, st.ABI)
	if err != nil {
		return nil, err
	}
	helperCommand(cmd, exe, w)
	return w, nil
}

// Pending is a helper started ahead of its program (Prestart): it waits for
// the policy, the program and its environment, which Send gives it, and
// exits having run nothing when Cancel closes its pipe instead.
type Pending struct {
	*Wrapped
	writer *os.File // this process's end of the policy pipe
}

// Prestart rewrites cmd, set up as for Wrap (Dir, standard files,
// ExtraFiles; its Args and Env are not used), to start git-tdd's helper
// before what it will run is known. Start cmd at once: the helper's own
// start (a process, a Go runtime) then overlaps the work that decides what
// to run, and Send restricts it and execs the program, as Wrap's would. A
// policy this machine cannot enforce is refused by Send, as by Wrap.
func Prestart(cmd *exec.Cmd) (*Pending, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has already started")
	}
	exe, err := self()
	if err != nil {
		return nil, err
	}
	st, _ := Probe() // a machine that cannot confine is refused by Send
	w, pw, err := pipes(st.ABI)
	if err != nil {
		return nil, err
	}
	helperCommand(cmd, exe, w)
	return &Pending{Wrapped: w, writer: pw}, nil
}

// Send gives the started helper its policy and program (args[0], looked up
// in env's PATH unless it is a path) and closes the pipe; an error (the
// policy is not valid, or this machine cannot enforce it) leaves the helper
// to exit having run nothing.
func (pd *Pending) Send(p Policy, args, env []string) error {
	defer pd.writer.Close()
	if len(args) == 0 {
		return errors.New("sandbox: the command has no arguments")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	st, err := Probe()
	if err != nil {
		return err
	}
	if err := st.Check(p); err != nil {
		return err
	}
	data, err := message{Policy: p, Path: args[0], Args: args, Env: env}.encode()
	if err != nil {
		return err
	}
	if err := fitPipe(pd.writer, len(data)); err != nil {
		return fmt.Errorf("sandbox: writing the policy: %w", err)
	}
	if _, err := pd.writer.Write(data); err != nil {
		return fmt.Errorf("sandbox: writing the policy: %w", err)
	}
	return nil
}

// Cancel makes a helper that was sent nothing exit, quietly, having run
// nothing.
func (pd *Pending) Cancel() { pd.writer.Close() }

// helperCommand makes cmd start the helper at exe, with w's pipes.
func helperCommand(cmd *exec.Cmd, exe string, w *Wrapped) {
	n := len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w.policy, w.report)
	cmd.Path = exe
	cmd.Args = []string{filepath.Base(os.Args[0]), HelperCommand, strconv.Itoa(3 + n), strconv.Itoa(4 + n)}
	if w.supervised != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, w.supervised)
		cmd.Args = append(cmd.Args, strconv.Itoa(5+n))
	}
	cmd.Env = []string{}
	cmd.Err = nil // the program is looked up by the helper, in its own PATH
}

// program is what the helper runs: the name cmd was made with, to be looked
// up in the program's own PATH, or the path it was given.
func program(cmd *exec.Cmd) string {
	name := cmd.Args[0]
	if cmd.Path == "" || !strings.Contains(name, "/") && (cmd.Path == name || filepath.Base(cmd.Path) == name) {
		return name
	}
	return cmd.Path
}

// newWrapped makes the two pipes and writes the policy, whole, before the
// helper starts: a pipe that cannot hold it is made larger.
func newWrapped(data []byte, abi int) (*Wrapped, error) {
	w, pw, err := pipes(abi)
	if err != nil {
		return nil, err
	}
	err = fitPipe(pw, len(data))
	if err == nil {
		_, err = pw.Write(data)
	}
	if cerr := pw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.Started()
		w.reply.Close()
		return nil, fmt.Errorf("sandbox: writing the policy: %w", err)
	}
	return w, nil
}

// pipes makes the helper's two pipes: the policy's, whose write end (pw) is
// this process's, and the report's; and before Landlock ABI 6 the socket of
// the supervisor of the program's signals.
func pipes(abi int) (w *Wrapped, pw *os.File, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	rr, rw, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, nil, err
	}
	w = &Wrapped{policy: pr, report: rw, reply: rr}
	if supervises(abi) {
		if w.supervisor, w.supervised, err = newSupervisor(); err != nil {
			pr.Close()
			pw.Close()
			rr.Close()
			rw.Close()
			return nil, nil, fmt.Errorf("sandbox: the supervisor of signals: %w", err)
		}
	}
	return w, pw, nil
}

// Started closes this process's copies of the helper's ends: call it once the
// command has started, or failed to.
func (w *Wrapped) Started() {
	w.policy.Close()
	w.report.Close()
	if w.supervised != nil {
		w.supervised.Close()
	}
}

// RefusedError is the helper's refusal to run the program: the sandbox could
// not be set up, or the program could not be started in it. The program did
// not run.
type RefusedError struct {
	Message string
}

func (e *RefusedError) Error() string { return e.Message }

// Err says whether the helper refused: a *RefusedError, or nil when it ran
// the program (whose own exit is what Wait returns). Called after Started, it
// waits until the helper has executed the program or given up; a command that
// failed to start has nil.
func (w *Wrapped) Err() error {
	defer w.reply.Close()
	data, err := io.ReadAll(io.LimitReader(w.reply, 64<<10))
	if err != nil {
		return fmt.Errorf("sandbox: reading the helper's report: %w", err)
	}
	if len(data) > 0 {
		return &RefusedError{Message: strings.TrimSpace(string(data))}
	}
	return nil
}
