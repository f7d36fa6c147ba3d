//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Launcher is Linux's confined thread; there is none elsewhere.
type Launcher struct{}

// Launcher refuses: there is no sandbox but on Linux.
func (p Policy) Launcher() (*Launcher, error) {
	st, _ := Probe()
	if err := st.Check(p); err != nil {
		return nil, err
	}
	return nil, errors.New("sandbox: not supported on this system")
}

// Start refuses.
func (l *Launcher) Start(*exec.Cmd, func(*exec.Cmd) error) error {
	return errors.New("sandbox: not supported on this system")
}

// Close does nothing.
func (l *Launcher) Close() {}
