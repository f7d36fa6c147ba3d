package issueflow

import (
	"regexp"
	"strings"
	"sync"
)

// The audit record git tdd adds to an issue's body, as an HTML comment
// GitHub does not show: the sha256 of each audit file as the human approved
// the filing. It is kept where only whoever files the issue can write it, so
// that a trail committed by a later run (after a crash, or a commit that had
// to wait) is checked against GitHub, not against a file in the folder.
const auditPrefix = "<!-- git-tdd audit:"

// auditComment is the record at the very end of a body: a line like it in
// the draft itself (a model's, or an agent's) is text, not the record.
var auditComment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\n*<!-- git-tdd audit:((?: [0-9]{3,}-[a-z]+\.[a-z]+=[0-9a-f]{64})+) -->\s*$`)
})

// AuditComment is the record for files (audit file name to content).
func AuditComment(files map[string][]byte) string {
	var b strings.Builder
	b.WriteString(auditPrefix)
	for _, n := range sortedAudit(keys(files)) {
		b.WriteString(" " + n + "=" + sha(files[n]))
	}
	b.WriteString(" -->\n")
	return b.String()
}

// WithAuditComment is the body that is filed: the approved text, then the record.
func WithAuditComment(body []byte, files map[string][]byte) []byte {
	text := strings.TrimRight(string(body), "\n")
	return []byte(text + "\n\n" + AuditComment(files))
}

// ParseAuditComment reads the record from an issue's body: file name to sha256.
func ParseAuditComment(body string) (map[string]string, bool) {
	m := auditComment().FindStringSubmatch(strings.ReplaceAll(body, "\r\n", "\n"))
	if m == nil {
		return nil, false
	}
	out := map[string]string{}
	for _, f := range strings.Fields(m[1]) {
		name, sum, _ := strings.Cut(f, "=")
		out[name] = sum
	}
	return out, true
}

// StripAuditComment is an issue's body without the record.
func StripAuditComment(body string) string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	if loc := auditComment().FindStringIndex(body); loc != nil {
		return body[:loc[0]] + "\n"
	}
	return body
}
