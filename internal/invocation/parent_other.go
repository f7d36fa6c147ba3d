//go:build !linux && !darwin

package invocation

// Parent cannot read another process's command line here: the caller takes
// the safe side.
func Parent() (Git, bool) { return Git{}, false }
