// Package commitmsg builds the commit messages git tdd and git diffgate write,
// from values it checks first, and reads an approval back from a message only
// where git's trailer rules put it.
//
// A value an agent can choose (a test id, a path, a subject, a URL) must
// never add a line to a message a human signs: one line break in a test id
// made "Diffgate-Approved" a trailer of a signed red commit (issue 20).
package commitmsg

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-tdd/git-tdd/internal/term"
)

// The trailers git tdd and git diffgate write.
const (
	ApprovedKey = "Diffgate-Approved" // a human's approval of the commit's tree
	PhaseKey    = "TDD-Phase"         // a gate commit of git tdd: red or green
	FailingKey  = "TDD-Failing"       // a test id or test file a red proved failing
	IssueKey    = "TDD-Issue"         // the issue of a git tdd merge
)

// MaxValue bounds, in bytes, each value written into a commit message: a test
// id, a path, a subject, a URL. Longer ones are refused, never cut.
const MaxValue = 512

// ValueError is a value that cannot go into a commit message, and why.
type ValueError struct {
	What   string // what the value is: "the test id", "the subject"
	Value  string
	Reason string
}

// Error shows the value escaped (term.Path): it is what was refused, and
// printing it raw would do on the screen what it would have done in the message.
func (e *ValueError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("%s: %s", term.Path(e.Value), e.Reason)
	}
	return fmt.Sprintf("%s %s: %s", e.What, term.Path(e.Value), e.Reason)
}

// CheckValue says why v cannot be one value of a commit message (a subject, a
// trailer's value), or nil: it must be valid UTF-8, hold no control character,
// line or paragraph separator or bidirectional control (Unprintable), be at
// most MaxValue bytes, and neither be empty nor begin or end with white space,
// which a trailer does not keep: what git reads back is exactly what was
// written.
func CheckValue(v string) error {
	reason := ""
	switch {
	case v == "":
		reason = "it is empty"
	case !utf8.ValidString(v):
		reason = "it is not valid UTF-8"
	case len(v) > MaxValue:
		reason = fmt.Sprintf("it is %d bytes long, over the limit of %d", len(v), MaxValue)
	}
	if reason == "" {
		if i := strings.IndexFunc(v, Unprintable); i >= 0 {
			r, _ := utf8.DecodeRuneInString(v[i:])
			reason = "it holds " + describe(r)
		}
	}
	if reason == "" && strings.TrimSpace(v) != v {
		reason = "it begins or ends with white space, which a trailer does not keep"
	}
	if reason == "" {
		return nil
	}
	return &ValueError{Value: v, Reason: reason}
}

// Unprintable reports a character no value of a commit message, nor any text
// of state.toml, may hold: a control character (C0, DEL, C1, NEL among them),
// the line and paragraph separators, and the bidirectional controls that make
// text read in another order than it is (a zero-width joiner, as in emoji, is
// fine).
func Unprintable(r rune) bool {
	switch {
	case unicode.IsControl(r), r == 0x2028, r == 0x2029,
		r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

func describe(r rune) string {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85:
		return fmt.Sprintf("a line break (%U)", r)
	case 0x2028:
		return "the line separator U+2028"
	case 0x2029:
		return "the paragraph separator U+2029"
	}
	if unicode.IsControl(r) {
		return fmt.Sprintf("the control character %U", r)
	}
	return fmt.Sprintf("the bidirectional control %U", r)
}

// Trailer is one "Key: value" line of a message.
type Trailer struct {
	Key, Value string
	// Line is the trailer as the message holds it, its continuation lines
	// joined with "\n"; "" for one Build is given.
	Line string
}

// Build writes a commit message: the subject, the body (our own text, which
// may be ""), then the trailers as the final paragraph. The subject, every
// line of the body and every trailer's value are checked (CheckValue; a body
// line may be empty or long), and the message is read back: its final
// trailer block must be exactly the trailers given, so nothing in it can add
// one.
func Build(subject, body string, trailers ...Trailer) (string, error) {
	if err := CheckValue(subject); err != nil {
		return "", named(err, "the subject")
	}
	for _, l := range strings.Split(body, "\n") {
		if !utf8.ValidString(l) || strings.IndexFunc(l, Unprintable) >= 0 {
			return "", &ValueError{What: "a line of the body", Value: l, Reason: "it holds a character no commit message may"}
		}
	}
	var b strings.Builder
	b.WriteString(subject)
	b.WriteString("\n")
	if body = strings.Trim(body, "\n"); body != "" {
		b.WriteString("\n" + body + "\n")
	}
	if len(trailers) > 0 {
		b.WriteString("\n")
	}
	for _, t := range trailers {
		if !isTrailerKey(t.Key) {
			return "", fmt.Errorf("invalid trailer key %q", t.Key)
		}
		if err := CheckValue(t.Value); err != nil {
			return "", named(err, "the "+t.Key+" value")
		}
		b.WriteString(t.Key + ": " + t.Value + "\n")
	}
	msg := b.String()
	back := FinalTrailers(msg)
	same := len(back) == len(trailers)
	for i := 0; same && i < len(back); i++ {
		same = back[i].Key == trailers[i].Key && back[i].Value == trailers[i].Value
	}
	if !same {
		return "", fmt.Errorf("the message %q would not read back with the trailers it was given", clip(msg))
	}
	return msg, nil
}

func named(err error, what string) error {
	if e, ok := err.(*ValueError); ok {
		e.What = what
	}
	return err
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// isTrailerKey: letters, digits and '-', as git's trailer tokens are.
func isTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isAlnum(k[i]) && k[i] != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
