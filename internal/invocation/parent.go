package invocation

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"time"
)

// startMargin is how much earlier than the kernel's record of a process's
// start Git.Start is: more than the resolution of that record (Linux counts
// in 10 ms ticks, and rounds down) and of a file's change time (the coarse
// clock, one tick behind at most).
const startMargin = 30 * time.Millisecond

// maxAncestors bounds the walk up from the hook to git: a hook manager
// (lefthook, pre-commit, husky's sh) may stand between them.
const maxAncestors = 8

// processInfo is what the walk needs of one process.
type processInfo struct {
	ppid int
	argv []string
}

// findGit walks up from pid to the first git process; read gives a process's
// parent and command line. ok is false when none is found or a process cannot
// be read.
func findGit(pid int, read func(pid int) (processInfo, bool)) (int, []string, bool) {
	for range maxAncestors {
		if pid <= 1 {
			return 0, nil, false
		}
		p, ok := read(pid)
		if !ok {
			return 0, nil, false
		}
		if isGit(p.argv) {
			return pid, p.argv, true
		}
		pid = p.ppid
	}
	return 0, nil, false
}

// isGit reports whether a command line is git's: git itself, or a dashed
// builtin (git-commit).
func isGit(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	base := filepath.Base(argv[0])
	return base == "git" || strings.HasPrefix(base, "git-") && commandOptions[strings.TrimPrefix(base, "git-")] != nil
}

// splitNul splits /proc/PID/cmdline: arguments each ended by a NUL.
func splitNul(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// parseProcArgs2 reads macOS's kern.procargs2: argc (a 32-bit integer), the
// executable's path, NUL padding, then argc arguments each ended by a NUL.
func parseProcArgs2(b []byte) ([]string, bool) {
	if len(b) < 4 {
		return nil, false
	}
	argc := int(binary.LittleEndian.Uint32(b))
	rest := b[4:]
	end := bytes.IndexByte(rest, 0)
	if end < 0 {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[end:], "\x00")
	var argv []string
	for len(argv) < argc {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			return nil, false
		}
		argv = append(argv, string(rest[:end]))
		rest = rest[end+1:]
	}
	return argv, argc > 0
}
