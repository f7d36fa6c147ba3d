package commitmsg

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Approval is what a Diffgate-Approved trailer says: when a human approved
// which tree.
type Approval struct {
	Time time.Time
	Tree string
}

// FormatApproval is the trailer recording an approval of tree at time at:
// what git diffgate's prepare-commit-msg hook adds, and git tdd's own
// approved commits carry.
func FormatApproval(at time.Time, tree string) string {
	t := ApprovalTrailer(at, tree)
	return t.Key + ": " + t.Value
}

// ApprovalTrailer is FormatApproval's trailer, for Build.
func ApprovalTrailer(at time.Time, tree string) Trailer {
	return Trailer{Key: ApprovedKey, Value: at.UTC().Format(time.RFC3339) + " tree=" + tree}
}

// ErrNoApproval: the message's final trailer block holds no Diffgate-Approved.
var ErrNoApproval = errors.New("no " + ApprovedKey + " trailer")

// approvalValue is the one form of an approval's value: an RFC 3339 time, one
// space, tree= and a SHA-1 or SHA-256 object id.
var approvalValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\S+) tree=([0-9a-f]{40}|[0-9a-f]{64})$`)
})

// looseApproval finds a Diffgate-Approved line anywhere, to say where it is
// when it does not count.
var looseApproval = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[ \t]*` + ApprovedKey + `[ \t]*:`)
})

// ParseApproval reads the approval of a commit message. It counts only in the
// message's final trailer block (FinalTrailers), there must be exactly one
// (whatever the case of its key), and it must be written exactly
// "Diffgate-Approved: <RFC 3339 time> tree=<40 or 64 hex digits>" on one line.
// A message without one is ErrNoApproval (wrapped, saying where a line that
// looks like one is when it does not count). A message with a NUL byte holds
// none: git never writes one, and reads a message only up to it, so what
// follows is seen by nobody who reads the commit with git.
func ParseApproval(msg string) (Approval, error) {
	if strings.IndexByte(msg, 0) >= 0 {
		return Approval{}, errors.New("a NUL byte in its message, which git never writes (and git log shows nothing after it): no approval")
	}
	var found []Trailer
	for _, t := range FinalTrailers(msg) {
		if strings.EqualFold(t.Key, ApprovedKey) {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 0 && looseApproval().MatchString(msg):
		return Approval{}, fmt.Errorf("%w in the message's final trailer block (a line elsewhere in the message is not one)", ErrNoApproval)
	case len(found) == 0:
		return Approval{}, ErrNoApproval
	case len(found) > 1:
		return Approval{}, fmt.Errorf("%d %s trailers: an approval is one", len(found), ApprovedKey)
	}
	t := found[0]
	m := approvalValue().FindStringSubmatch(t.Value)
	var at time.Time
	err := errors.New("malformed")
	if m != nil {
		at, err = time.Parse(time.RFC3339, m[1])
	}
	if err != nil || t.Line != ApprovedKey+": "+t.Value {
		return Approval{}, fmt.Errorf("a malformed %s trailer %q: it must be %q", ApprovedKey, clip(t.Line), ApprovedKey+": <RFC 3339 time> tree=<tree id>")
	}
	return Approval{Time: at, Tree: m[2]}, nil
}

// Phase is the value of the message's TDD-Phase trailer ("red", "green"), ""
// when its final trailer block has none: a commit git tdd wrote as a gate,
// which is never an approved commit of a protected branch (it lands only
// inside an approved git tdd merge).
func Phase(msg string) string {
	for _, t := range FinalTrailers(msg) {
		if strings.EqualFold(t.Key, PhaseKey) {
			if t.Value == "" {
				return "?"
			}
			return t.Value
		}
	}
	return ""
}
