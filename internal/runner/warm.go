package runner

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/sandbox"
)

// Warm is a confined run's process started before its command is known: the
// sandbox's helper (sandbox.Prestart), in the run's directory, its output a
// pipe, waiting for the policy and the program. Red and green start one
// while they stage and decide what to run, so that the helper's own start
// is not on the way to the tests. One run uses it; Close ends it unused.
type Warm struct {
	dir   string
	ready chan struct{} // closed once the helper started, or failed to (err)
	err   error

	proc    *confine.Proc
	pending *sandbox.Pending
	out     *os.File // the read end of the run's output

	mu   sync.Mutex
	used bool
}

// Prestart starts a helper for a confined run in dir, in the background: the
// caller goes on at once. A helper that fails to start is not used, and the
// run starts its own (and says what fails).
func Prestart(dir string) *Warm {
	w := &Warm{dir: dir, ready: make(chan struct{})}
	go func() {
		defer close(w.ready)
		w.err = w.start()
	}()
	return w
}

func (w *Warm) start() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(sandbox.HelperCommand) // Prestart replaces Path and Args
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.dir, pw, pw
	pending, err := sandbox.Prestart(cmd)
	if err != nil {
		pr.Close()
		pw.Close()
		return err
	}
	p, err := confine.Start(cmd)
	pending.Started()
	pw.Close()
	if err != nil {
		pending.Cancel()
		pending.Err()
		pr.Close()
		return err
	}
	w.proc, w.pending, w.out = p, pending, pr
	return nil
}

// take hands the helper to a confined run of s in its directory, once; nil
// when there is none for it.
func (w *Warm) take(s Spec) *Warm {
	if w == nil || s.Sandbox == nil || s.Dir != w.dir {
		return nil
	}
	if <-w.ready; w.err != nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.used {
		return nil
	}
	w.used = true
	return w
}

// Close ends a helper no run used: it exits having run nothing.
func (w *Warm) Close() {
	if w == nil {
		return
	}
	if <-w.ready; w.err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.used {
		return
	}
	w.used = true
	w.pending.Cancel()
	w.out.Close()
	w.proc.Stop(time.Second)
	w.proc.Wait()
	w.pending.Err()
}
