package state

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-tdd/git-tdd/internal/commitmsg"
)

// The phases of a git tdd workflow (DESIGN §5).
const (
	PhaseStarted = "started"
	PhaseRed     = "red"
	PhaseGreen   = "green"
	PhaseMerged  = "merged"
	PhaseAborted = "aborted"
)

// Workflow is one TDD lifecycle of an issue. An issue started again after a
// merge or an abort (start --again, start --from) has one workflow a time,
// each its own record: the first is named after the issue ("87"), the next
// ones "87-2", "87-3" (RecordName), so the history stays as it ended.
type Workflow struct {
	// Name is the record's key in state.toml: the issue, or issue-N for the
	// Nth workflow of the issue. Set when read; never written as a field.
	Name       string    `toml:"-"`
	Issue      string    `toml:"issue"`
	Phase      string    `toml:"phase"`
	Branch     string    `toml:"branch"`
	Base       string    `toml:"base"`           // the branch it merges into
	From       string    `toml:"from,omitempty"` // where it started, as given to start --base, when not Base
	BaseCommit string    `toml:"base_commit"`    // where the branch started
	Worktree   string    `toml:"worktree"`
	Subject    string    `toml:"subject,omitempty"`
	LLD        string    `toml:"lld,omitempty"`
	Context    []string  `toml:"context,omitempty"`
	Red        RedRecord `toml:"red"`
	Green      Commit    `toml:"green"`
	Attempts   Attempts  `toml:"attempts"`
	Started    time.Time `toml:"started"`
	Updated    time.Time `toml:"updated"`
	Merged     string    `toml:"merged,omitempty"` // the merge commit
	Backup     string    `toml:"backup,omitempty"` // the backup ref an abort saved
	Run        *Run      `toml:"run,omitempty"`    // git tdd run's progress, when it drives the workflow
	// Unconfined counts the agent runs (git tdd run, git tdd agent) the
	// human started with --no-sandbox: its local state may be forged.
	Unconfined int `toml:"unconfined,omitempty"`
}

// IsIssueName reports whether s has the form of an issue git tdd start
// accepts (lifecycle.CheckIssue): a letter or a digit, then up to 63 letters,
// digits, '.', '_' or '-'. A loop, not ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$:
// that regexp compiles to 60 KB, on every command that reads the state.
func IsIssueName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := range len(s) {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// check refuses a workflow whose names could not have been written by git
// tdd: an issue that is not an issue name, or text with control characters.
// Anything with a shell can edit state.toml, and these strings reach the
// human's terminal (merge's question, status): an ESC c there clears the
// screen right where the human decides.
func (w *Workflow) check(key string) error {
	if !IsIssueName(w.Issue) {
		return fmt.Errorf("workflow %q: invalid issue %q", key, w.Issue)
	}
	if _, ok := RecordNumber(key, w.Issue); !ok {
		return fmt.Errorf("workflow %q: not a record name of issue %q (%s, or %s-N from 2 up)", key, w.Issue, w.Issue, w.Issue)
	}
	fields := append([]string{w.Phase, w.Branch, w.Base, w.From, w.BaseCommit, w.Worktree, w.Subject, w.LLD,
		w.Red.Commit, w.Green.Commit, w.Merged, w.Backup}, w.Context...)
	fields = append(fields, w.Red.Failing...)
	for _, f := range fields {
		if !utf8.ValidString(f) {
			return fmt.Errorf("workflow %q: a value is not valid UTF-8", key)
		}
		if i := strings.IndexFunc(f, commitmsg.Unprintable); i >= 0 {
			return fmt.Errorf("workflow %q: a value holds the control character %U", key, []rune(f[i:])[0])
		}
	}
	return nil
}

// Run is where git tdd run is in seed 002's graph, saved after every step so
// that run resumes there.
type Run struct {
	Node       string    `toml:"node"`       // scaffold, red, implement, green, lint, review, merged, aborted
	Scaffolds  int       `toml:"scaffolds"`  // refused scaffolds since the last valid red
	Implements int       `toml:"implements"` // failed implementations since the last green
	Calls      int       `toml:"calls"`      // agent calls in all
	TokensIn   int       `toml:"tokens_in"`
	TokensOut  int       `toml:"tokens_out"`
	Seconds    float64   `toml:"seconds"`            // time spent running, over every session
	Feedback   string    `toml:"feedback,omitempty"` // why the last attempt did not pass, for the next prompt
	Outcome    string    `toml:"outcome,omitempty"`  // the same in a few words, for its heading ("2 tests still fail")
	Started    time.Time `toml:"started"`
	// Rejections are the human's REJECTs at the merge question, each with
	// the reason typed on the terminal, oldest first: the agent gets them
	// in its next implement prompts, and more than [test] max_retries stop
	// the run for a human.
	Rejections []Rejection `toml:"rejections,omitempty"`
}

// Rejection is one REJECT at git tdd run's merge question. The reason is the
// human's text as typed (at most MaxReason bytes): shown escaped.
type Rejection struct {
	Reason string    `toml:"reason"`
	At     time.Time `toml:"at"`
}

// MaxReason bounds a rejection's reason: a few sentences for the agent, not
// a document (a terminal's line holds at most 4 KiB anyway).
const MaxReason = 2000

// BoundReason is reason cut to MaxReason bytes at a character's boundary,
// with a mark where it was cut.
func BoundReason(reason string) string {
	if len(reason) <= MaxReason {
		return reason
	}
	cut := MaxReason - len("…")
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + "…"
}

// RedRecord is what a valid red proved.
type RedRecord struct {
	Commit  string   `toml:"commit,omitempty"`
	Failing []string `toml:"failing,omitempty"`
	// TestFiles was a hash of each test file, written by versions that kept
	// the freeze here; it is read and ignored: the red commit's blobs are the freeze.
	TestFiles map[string]string `toml:"test_files,omitempty"`
}

// Commit is a phase's commit.
type Commit struct {
	Commit string `toml:"commit,omitempty"`
}

// Attempts counts failed gate runs since the last success.
type Attempts struct {
	Red   int `toml:"red"`
	Green int `toml:"green"`
}

// StartPoint names where the branch started: start --base as given, or the
// base branch.
func (w *Workflow) StartPoint() string {
	if w.From != "" {
		return w.From
	}
	return w.Base
}

// Active reports whether the workflow is still in progress.
func (w *Workflow) Active() bool {
	return w.Phase != PhaseMerged && w.Phase != PhaseAborted
}

// ActiveBranches are the branches of workflows in progress: there the git tdd
// gates apply instead of the diff gate's hooks.
func (s *State) ActiveBranches() map[string]bool {
	out := map[string]bool{}
	for _, w := range s.Workflows {
		if w.Active() && w.Branch != "" {
			out["refs/heads/"+w.Branch] = true
		}
	}
	return out
}

// SortedWorkflows returns the workflows in issue order, each issue's in the
// order they were started.
func (s *State) SortedWorkflows() []*Workflow {
	out := make([]*Workflow, 0, len(s.Workflows))
	for name, w := range s.Workflows {
		w.Name = name
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Issue != b.Issue {
			return issueLess(a.Issue, b.Issue)
		}
		na, _ := RecordNumber(a.Name, a.Issue)
		nb, _ := RecordNumber(b.Name, b.Issue)
		return na < nb
	})
	return out
}

// RecordName names the nth workflow of issue: the issue itself for the
// first, "<issue>-<n>" for the next ones.
func RecordName(issue string, n int) string {
	if n <= 1 {
		return issue
	}
	return issue + "-" + strconv.Itoa(n)
}

// RecordNumber is the inverse of RecordName: which workflow of issue the
// record name is (1 for the issue itself); ok is false when name is no record
// name of issue.
func RecordNumber(name, issue string) (n int, ok bool) {
	if name == issue {
		return 1, true
	}
	digits, found := strings.CutPrefix(name, issue+"-")
	if !found || !isDigits(digits) || digits[0] == '0' || len(digits) > 6 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 2 {
		return 0, false
	}
	return n, true
}

// ActiveOf is the workflow of issue in progress, or nil (start allows one a time).
func (s *State) ActiveOf(issue string) *Workflow {
	for _, w := range s.SortedWorkflows() {
		if w.Issue == issue && w.Active() {
			return w
		}
	}
	return nil
}

// Lookup is the workflow a name on the command line means: the issue's
// workflow in progress, else the record of that name ("87" is the first
// workflow of issue 87, "87-2" the second); nil when there is none.
func (s *State) Lookup(name string) *Workflow {
	if w := s.ActiveOf(name); w != nil {
		return w
	}
	if w := s.Workflows[name]; w != nil {
		w.Name = name
		return w
	}
	return nil
}

// History is every workflow of issue, in the order they were started.
func (s *State) History(issue string) []*Workflow {
	var out []*Workflow
	for _, w := range s.SortedWorkflows() {
		if w.Issue == issue {
			out = append(out, w)
		}
	}
	return out
}

// NextName is the record name the next workflow of issue gets: the issue
// itself for its first, else one past the last of its history (never a name
// in use, whatever issue holds it).
func (s *State) NextName(issue string) string {
	n := 1
	for _, w := range s.History(issue) {
		if k, ok := RecordNumber(w.Name, issue); ok && k >= n {
			n = k + 1
		}
	}
	for s.Workflows[RecordName(issue, n)] != nil {
		n++
	}
	return RecordName(issue, n)
}

// issueLess orders issue names numerically when both are numbers.
func issueLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
