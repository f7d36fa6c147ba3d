// Package exitcode defines the process exit codes both commands share and the error that carries one.
package exitcode

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// The exit codes of DESIGN §3; both commands document them in -h and the man pages.
const (
	OK            = 0   // done: approved, gate passed, written, merged
	Refused       = 1   // a human said no, or a gate's condition does not hold
	Usage         = 2   // usage, configuration or environment error; nothing was changed
	HumanRequired = 3   // an approval is needed but there is no terminal, or --auto forbids it
	Escalate      = 4   // the test run itself broke, or a retry limit was reached
	Interrupted   = 130 // interrupted by a signal
)

// Table is the exit-code table shown by -h and in the man pages.
const Table = `Exit codes:
  0    done: approved, gate passed, written, merged
  1    refused: a human said no, or a gate's condition does not hold
  2    usage, configuration or environment error (bad flag, bad TOML, not a git repository)
  3    a human is required: no terminal, or --auto; nothing was changed
  4    escalate: the test run itself broke, or a retry limit was reached
  130  interrupted`

// Error is an error with the exit code it should end the process with. Detail lines
// are printed after the error line as they are (for messages fixed by the seeds), and
// Hint says what to run next.
type Error struct {
	Code   int
	Err    error // nil: exit silently, the result has been printed already
	Detail []string
	Hint   string
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error that exits with code.
func New(code int, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Wrap gives err an exit code; a nil err stays nil.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// With gives a non-nil err an exit code, to add a hint or detail to.
func With(code int, err error) *Error { return &Error{Code: code, Err: err} }

// Silent ends the process with code without printing anything more.
func Silent(code int) *Error { return &Error{Code: code} }

// WithHint adds what to run next.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithDetail adds lines printed verbatim after the error line.
func (e *Error) WithDetail(lines ...string) *Error {
	e.Detail = append(e.Detail, lines...)
	return e
}

// Of returns the exit code for err: 0 for nil, the carried code, 130 for a
// cancelled context, and Usage for anything unforeseen (the command could not run).
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Usage
}

// Lines returns what the error printer shows after the error line.
func Lines(err error) (detail []string, hint string) {
	var e *Error
	if !errors.As(err, &e) {
		return nil, ""
	}
	return e.Detail, strings.TrimSpace(e.Hint)
}

// IsSilent reports whether err only carries an exit code.
func IsSilent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Err == nil
}
