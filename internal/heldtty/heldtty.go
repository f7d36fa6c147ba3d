// Package heldtty records which terminals a live git tdd agent session holds:
// there an agent reads what is typed and draws on the screen, so no gate asks
// its question on one (merge's APPROVE, git diffgate's review). A session
// registers its terminals in a file of the repository's common git dir,
// tdd/agents/<pid>, which the agent in it cannot write (the git dir is
// read-only in the sandbox); a file whose process is gone, or is another
// process now, holds nothing.
package heldtty

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrHeld is the refusal to ask on a terminal a session holds.
var ErrHeld = errors.New("a git tdd agent session holds this terminal: ask in another terminal")

// Dir is where sessions register.
func Dir(commonDir string) string { return filepath.Join(commonDir, "tdd", "agents") }

// Register records that this process holds the terminals devs; release
// removes the record.
func Register(commonDir string, devs []uint64) (release func(), err error) {
	if err := os.MkdirAll(Dir(commonDir), 0o755); err != nil {
		return nil, err
	}
	pid := os.Getpid()
	var b strings.Builder
	fmt.Fprintf(&b, "pid %d\nstart %s\n", pid, startTime(pid))
	for _, d := range devs {
		fmt.Fprintf(&b, "tty %d\n", d)
	}
	path := filepath.Join(Dir(commonDir), strconv.Itoa(pid))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// Holder is the pid of a live session that holds the terminal dev, or 0.
func Holder(commonDir string, dev uint64) (int, error) {
	entries, err := os.ReadDir(Dir(commonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(Dir(commonDir), e.Name()))
		if err != nil {
			continue
		}
		r, ok := parse(string(data))
		if !ok || strconv.Itoa(r.pid) != e.Name() || !r.holds(dev) {
			continue
		}
		if alive(r.pid, r.start) {
			return r.pid, nil
		}
	}
	return 0, nil
}

// Check refuses (ErrHeld) when a live session holds the terminal f.
func Check(commonDir string, f *os.File) error {
	dev, ok := Device(f)
	if !ok || commonDir == "" {
		return nil
	}
	pid, err := Holder(commonDir, dev)
	if err != nil {
		return err
	}
	if pid != 0 {
		return fmt.Errorf("%w (process %d)", ErrHeld, pid)
	}
	return nil
}

// record is one session's file.
type record struct {
	pid   int
	start string
	ttys  []uint64
}

func (r record) holds(dev uint64) bool {
	for _, t := range r.ttys {
		if t == dev {
			return true
		}
	}
	return false
}

// parse reads a session's file; anything malformed holds nothing.
func parse(data string) (record, bool) {
	var r record
	for _, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			return r, false
		}
		switch k {
		case "pid":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return r, false
			}
			r.pid = n
		case "start":
			r.start = v
		case "tty":
			d, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return r, false
			}
			r.ttys = append(r.ttys, d)
		default:
			return r, false
		}
	}
	return r, r.pid > 0
}
