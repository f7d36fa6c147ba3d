package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Policy is what a confined program may do. Paths are absolute, clean, and
// free of symbolic links (the constructors, ForAgent and ForTests, resolve
// them); a path covers everything beneath it.
type Policy struct {
	// Write are the hierarchies the program may change, with every right
	// Landlock has: the worktree, the run's temporary directory, the paths a
	// human allowed. Each must exist.
	Write []string `json:"write"`
	// Read are hierarchies that must stay readable (the repository's git
	// dirs): a policy that denies one is refused. Everything else but Deny is
	// readable too.
	Read []string `json:"read"`
	// Deny are the hierarchies the program may not read: the human's
	// credentials. They need not exist.
	Deny []string `json:"deny"`
	// Network lets the program create internet sockets.
	Network bool `json:"network"`
	// Ports, with Network, are the only TCP ports it may connect to (Landlock
	// ABI 4); empty, any.
	Ports []uint16 `json:"ports"`
	// UnixSockets lets it connect to unix sockets outside its sandbox: the
	// human's servers (see the package documentation).
	UnixSockets bool `json:"unix_sockets"`
	// Terminal lets it use the terminal it is given as standard input,
	// output or error, and /dev/tty (git tdd agent); else no terminal opens.
	Terminal bool `json:"terminal"`
}

// Validate refuses a policy that is malformed or contradicts itself: a path
// both granted and denied, whichever holds the other, would be readable, since
// Landlock only grants.
func (p Policy) Validate() error {
	for _, list := range [][]string{p.Write, p.Read, p.Deny} {
		for _, path := range list {
			if !filepath.IsAbs(path) || filepath.Clean(path) != path || strings.ContainsRune(path, 0) {
				return fmt.Errorf("sandbox: %q is not a clean absolute path", path)
			}
		}
	}
	for _, d := range p.Deny {
		if d == "/" {
			return errors.New("sandbox: denying / leaves nothing to run")
		}
		for _, w := range p.Write {
			if overlap(w, d) {
				return fmt.Errorf("sandbox: %s would be writable and %s unreadable: one holds the other", w, d)
			}
		}
		for _, r := range p.Read {
			if overlap(r, d) {
				return fmt.Errorf("sandbox: %s must stay readable, and %s is denied: one holds the other", r, d)
			}
		}
	}
	if len(p.Ports) > 0 && !p.Network {
		return errors.New("sandbox: ports are given with the network off")
	}
	for _, port := range p.Ports {
		if port == 0 {
			return errors.New("sandbox: port 0 is not a port")
		}
	}
	return nil
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// overlap reports whether one of a and b holds the other.
func overlap(a, b string) bool { return within(a, b) || within(b, a) }

// magic opens every policy the helper reads: a pipe that holds anything else
// is not git-tdd's.
const magic = "git-tdd sandbox policy 1"

// maxMessage bounds what the helper reads from its pipe.
const maxMessage = 1 << 20

// message is what git-tdd writes on the policy pipe: the policy, and the
// program with its arguments and environment.
type message struct {
	Magic  string   `json:"magic"`
	Policy Policy   `json:"policy"`
	Path   string   `json:"path"` // the program: a name looked up in Env's PATH, or a path
	Args   []string `json:"args"` // its arguments, the first its name
	Env    []string `json:"env"`
}

func (m message) encode() ([]byte, error) {
	m.Magic = magic
	data, err := json.Marshal(m)
	if err == nil && len(data) > maxMessage {
		err = fmt.Errorf("sandbox: the policy and environment take %d bytes, more than %d", len(data), maxMessage)
	}
	return data, err
}

// decodeMessage reads one message, strictly: unknown fields, trailing data, a
// wrong magic or an invalid policy are refused.
// errEmpty is a policy pipe closed with nothing written.
var errEmpty = errors.New("sandbox: the policy pipe is empty")

func decodeMessage(r io.Reader) (message, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxMessage+1))
	if err != nil {
		return message{}, fmt.Errorf("sandbox: reading the policy: %w", err)
	}
	if len(data) > maxMessage {
		return message{}, errors.New("sandbox: the policy is too large")
	}
	if len(data) == 0 {
		return message{}, errEmpty
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m message
	if err := dec.Decode(&m); err != nil {
		return message{}, fmt.Errorf("sandbox: the policy is not valid: %w", err)
	}
	if dec.More() {
		return message{}, errors.New("sandbox: the policy is followed by more data")
	}
	if m.Magic != magic {
		return message{}, errors.New("sandbox: the pipe does not hold a git-tdd policy")
	}
	if m.Path == "" || len(m.Args) == 0 {
		return message{}, errors.New("sandbox: the policy names no program")
	}
	return m, m.Policy.Validate()
}
