//go:build !linux && !darwin

package invocation

import "time"

// ChangedSince cannot tell here: every file counts as changed.
func ChangedSince(files []string, t time.Time, busy ...string) bool { return len(files) > 0 }
