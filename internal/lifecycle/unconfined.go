package lifecycle

import (
	"github.com/git-tdd/git-tdd/internal/state"
)

// AuditUnconfined notes in the audit log, before the agent runs, that the
// human runs the agent of issue without the sandbox (--no-sandbox); command
// is run, agent or issue.
func (e *Env) AuditUnconfined(command, issue, detail string) error {
	return e.Store.Audit(e.Ctx, state.AuditEntry{Command: command, Issue: issue, Outcome: "unconfined",
		Detail: "--no-sandbox: " + detail})
}

// MarkUnconfined counts one unconfined agent call or session in the record of issue's
// workflow (the active one, else its last), which git tdd status shows: its
// local state may be forged.
func (e *Env) MarkUnconfined(issue string) error {
	return e.Store.Update(e.Ctx, func(st *state.State) error {
		w := st.ActiveOf(issue)
		if h := st.History(issue); w == nil && len(h) > 0 {
			w = h[len(h)-1]
		}
		if w != nil {
			w.Unconfined++
		}
		return nil
	})
}
