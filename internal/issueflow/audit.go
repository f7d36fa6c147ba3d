// Package issueflow is git tdd issue: seed 004's two-gate workflow that turns a
// brief into a GitHub issue, with a human between every model and GitHub and an
// audit file for every step.
package issueflow

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Kind is what an audit file records.
type Kind string

// The audit files, numbered in event order (seed 004 §2.5).
const (
	KindBrief    Kind = "brief"    // 001-brief.md: the brief as given
	KindDraft    Kind = "draft"    // a drafter's answer, as the human left it
	KindFeedback Kind = "feedback" // what the human asked the drafter to change
	KindVerdict  Kind = "verdict"  // the reviewer's answer, as the human left it
	KindFiled    Kind = "filed"    // what GitHub assigned, and what was sent
)

var extension = map[Kind]string{KindBrief: ".md", KindDraft: ".md", KindFeedback: ".txt", KindVerdict: ".md", KindFiled: ".json"}

// FileName is the name of the n-th audit file, of kind k.
func FileName(n int, k Kind) string {
	return fmt.Sprintf("%03d-%s%s", n, k, extension[k])
}

var auditName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9]{3,})-(brief|draft|feedback|verdict|filed)\.(md|txt|json)$`)
})

// maxNumber bounds the audit files' numbers: a workflow has a few dozen.
const maxNumber = 99999

// sortedAudit are the audit files among names, in event order.
func sortedAudit(names []string) []string {
	var out []string
	for _, n := range names {
		if auditName().MatchString(n) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := auditNumber(out[i]), auditNumber(out[j])
		if a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

func auditNumber(name string) int {
	n, err := strconv.Atoi(auditName().FindStringSubmatch(name)[1])
	if err != nil {
		return maxNumber + 1
	}
	return n
}

// Node is a step of the workflow.
type Node string

// The nodes a workflow rests at between runs.
const (
	NodeDraft       Node = "draft"        // N2: ask the drafter
	NodeEditDraft   Node = "edit-draft"   // N3: the human's gate after the drafter
	NodeReview      Node = "review"       // N4: ask the reviewer
	NodeEditVerdict Node = "edit-verdict" // N5: the human's gate after the reviewer
	NodeFile        Node = "file"         // N6: file it with gh
	NodeFiled       Node = "filed"        // filed; the folder is still to move and commit
	NodeDone        Node = "done"         // filed, moved and committed
)

// Label is how a node is shown: seed 004's number and what happens there.
func (n Node) Label() string {
	switch n {
	case NodeDraft:
		return "N2 draft"
	case NodeEditDraft:
		return "N3 draft gate"
	case NodeReview:
		return "N4 review"
	case NodeEditVerdict:
		return "N5 verdict gate"
	case NodeFile:
		return "N6 file"
	case NodeFiled:
		return "N6 filed, not yet committed"
	case NodeDone:
		return "done"
	}
	return string(n)
}

// Position is where a workflow stands, read from its audit folder: the files
// are the record of what happened, state.toml only a cache of where they are.
type Position struct {
	Node     Node
	Next     int // the number of the next audit file
	Drafts   int
	Verdicts int
	Draft    string // the current draft
	Verdict  string // the verdict on the current draft, if any
	Feedback string // feedback not yet drafted from
	Filed    string
}

// PositionOf reads a position from the names in an audit folder; other names
// are ignored. A draft is followed by its gate; feedback by a new draft; a
// verdict by its gate. So a workflow interrupted anywhere resumes at the last
// human gate it reached, or at the model call a human's decision asked for.
func PositionOf(names []string) (Position, error) {
	type event struct {
		n    int
		kind Kind
		name string
	}
	var events []event
	for _, name := range names {
		m := auditName().FindStringSubmatch(name)
		if m == nil || "."+m[3] != extension[Kind(m[2])] {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n > maxNumber {
			return Position{}, fmt.Errorf("%s is numbered past %d: not a file of this workflow", name, maxNumber)
		}
		events = append(events, event{n, Kind(m[2]), name})
	}
	sort.Slice(events, func(i, j int) bool {
		if events[i].n != events[j].n {
			return events[i].n < events[j].n
		}
		return events[i].name < events[j].name
	})
	p := Position{Node: NodeDraft, Next: 1}
	brief := false
	for _, e := range events {
		p.Next = max(p.Next, e.n+1)
		switch e.kind {
		case KindBrief:
			brief = true
		case KindDraft:
			p.Node, p.Draft, p.Verdict, p.Feedback = NodeEditDraft, e.name, "", ""
			p.Drafts++
		case KindFeedback:
			p.Node, p.Feedback = NodeDraft, e.name
		case KindVerdict:
			p.Node, p.Verdict = NodeEditVerdict, e.name
			p.Verdicts++
		case KindFiled:
			p.Node, p.Filed = NodeFiled, e.name
		}
	}
	if !brief {
		return Position{}, errors.New("no 001-brief.md: this is not an issue workflow's folder")
	}
	return p, nil
}

// SlugFor is the workflow name for a brief: its file name without the
// extension, lower case, each run of other characters than a-z, 0-9, '.', '_'
// and '-' made one '-', at most 64 bytes.
func SlugFor(path string) string {
	base := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var b strings.Builder
	dash := false
	for i := 0; i < len(base); i++ {
		c := base[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-._")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-._")
	}
	return s
}

// CheckSlug accepts a name a human gives a workflow: what SlugFor would make of it.
func CheckSlug(s string) error {
	if s == "" {
		return errors.New("the workflow name is empty")
	}
	if SlugFor(s+".md") != s || strings.Contains(s, "..") {
		suggest := ""
		if t := SlugFor(s + ".md"); t != "" && !strings.Contains(t, "..") {
			suggest = fmt.Sprintf(" (like %q)", t)
		}
		return fmt.Errorf("%q is not a workflow name: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit%s", s, suggest)
	}
	return nil
}
