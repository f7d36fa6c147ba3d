package lifecycle

import (
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/runner"
)

// GateResult is what red, green and merge print with --json, passed or not;
// the diagnostics still go to standard error.
type GateResult struct {
	Issue    string   `json:"issue"`
	Gate     string   `json:"gate"` // red, green or merge
	OK       bool     `json:"ok"`
	Verdict  string   `json:"verdict"` // red, green, merged, or why not (premature, still-failing, …)
	ExitCode int      `json:"exit_code"`
	Message  string   `json:"message"`
	Tests    []string `json:"tests"`  // the tests the verdict is about
	Commit   string   `json:"commit"` // the commit the gate wrote, if any
	// Failing and Passing are the test run's ids (the last run: merge's on the
	// merged tree) that failed or errored, and that passed.
	Failing []string `json:"failing"`
	Passing []string `json:"passing"`
	Proved  *Proved  `json:"proved,omitempty"`
	// Run is the test run the verdict came from, for git tdd run's next
	// prompt (its output's tail); not printed.
	Run *runner.Result `json:"-"`
}

// emit prints r as JSON when --json was given, completing it from err, the
// gate's own error, which it returns unless the printing fails; the result is
// kept in Last.
func (e *Env) emit(r *GateResult, err error) error {
	e.Last = r
	if r.Verdict == "" && err != nil {
		r.Message = err.Error()
	}
	if !e.JSON {
		return err
	}
	r.ExitCode = exitcode.Of(err)
	r.OK = err == nil
	if err != nil {
		if r.Verdict == "" || r.Verdict == r.Gate {
			r.Verdict = "refused"
			if r.ExitCode != exitcode.Refused {
				r.Verdict = map[int]string{exitcode.Usage: "usage", exitcode.HumanRequired: "human-required", exitcode.Escalate: "escalate", exitcode.Interrupted: "interrupted"}[r.ExitCode]
			}
		}
		if r.Message == "" {
			r.Message = err.Error()
		}
		if len(r.Tests) == 0 {
			detail, _ := exitcode.Lines(err)
			for _, d := range detail {
				r.Tests = append(r.Tests, strings.TrimSpace(d))
			}
		}
	}
	if r.Tests == nil {
		r.Tests = []string{}
	}
	r.Failing, r.Passing = []string{}, []string{}
	if r.Run != nil {
		for _, t := range r.Run.Tests {
			switch t.Outcome {
			case runner.Passed:
				r.Passing = append(r.Passing, t.ID)
			case runner.Failed, runner.Errored, runner.XPassed:
				r.Failing = append(r.Failing, t.ID)
			}
		}
	}
	if werr := writeJSON(e.Out, r); werr != nil && err == nil {
		return werr
	}
	return err
}

// verdict fills r from a test verdict.
func (r *GateResult) verdict(v Verdict) {
	r.Verdict, r.Message = v.Kind, v.Message
	r.Tests = append([]string{}, v.List...)
	if v.Kind == KindRed {
		r.Tests = v.Failing
	}
}
