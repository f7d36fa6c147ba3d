//go:build !linux

package confine

import "syscall"

// Other systems than Linux have no child subreaper: what a program left is
// killed through its process group only, and a process that left the group
// outlives it. The program still has no controlling terminal.

// BecomeSubreaper does nothing where there is no child subreaper.
func BecomeSubreaper() error { return nil }

// NoInheritance does nothing here.
func NoInheritance() error { return nil }

func (p *Proc) watch() {}

func (p *Proc) wait() error {
	err := p.cmd.Wait()
	p.mu.Lock()
	syscall.Kill(-p.Pid(), syscall.SIGKILL)
	p.reaped = true
	p.mu.Unlock()
	close(p.exited)
	return err
}

type proc struct {
	pid, ppid int
	zombie    bool
	comm      string
}

func strays(bool) []proc      { return nil }
func children() map[key]bool  { return nil }
func reap(int) bool           { return true }
func cmdline(p proc) []string { return []string{p.comm} }
