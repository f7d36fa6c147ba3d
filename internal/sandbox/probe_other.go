//go:build !linux

package sandbox

import "runtime"

// Probe finds what this machine offers: no Landlock but on Linux.
func Probe() (Status, error) {
	return Status{OS: runtime.GOOS, Arch: runtime.GOARCH, Landlock: "not Linux"}, nil
}
