// Package contextcheck decides which files may be handed to an agent as context
// (seed 002, N0): inside the repository, no secrets by name or by content, and
// within the size and token budgets.
package contextcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/excerpt"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Limits are the budgets and the extra secret patterns (glob patterns on the
// file name, added to the built-in ones) of [context].
type Limits = config.Context

// File is one accepted file: what is sent of it.
type File struct {
	Path    string `json:"path"`   // relative to the repository root, with slashes
	Bytes   int    `json:"bytes"`  // of what is sent
	Tokens  int    `json:"tokens"` // of what is sent
	Content string `json:"content"`
	// Sent says what part of the file is sent: "whole", or for a large
	// Python or Go file "outline + N definitions" (excerpt.Part).
	Sent string `json:"sent"`
	// Size is the file's size on disk, and Source the file itself: for a
	// file sent whole, Content.
	Size   int    `json:"size"`
	Source string `json:"-"`
}

// Problem is why a path is refused.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is the checked bundle.
type Result struct {
	Files    []File    `json:"files"`
	Tokens   int       `json:"tokens"`
	Problems []Problem `json:"problems"`
}

// OK reports whether nothing was refused.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// Err is nil when nothing was refused, or else the usage error (exit 2) with
// msg and one line a problem.
func (r *Result) Err(msg string) error {
	if r.OK() {
		return nil
	}
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = "  " + p.Reason
		if p.Path != "" {
			lines[i] = fmt.Sprintf("  %s: %s", term.Path(p.Path), p.Reason)
		}
	}
	return exitcode.New(exitcode.Usage, "%s", msg).WithDetail(lines...)
}

// Counter counts the tokens of a text.
type Counter func(string) int

// secretNames are the seed's patterns, matched case-insensitively on the name.
var secretNames = []string{".env", ".env.*", "*.pem", "*.key", "*secret*", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12", "*.pfx", ".netrc", ".pgpass", ".npmrc", ".pypirc", "hosts.yml",
	// and other credential stores: PuTTY keys, git's credential store, AWS's
	// credentials file, kubeconfigs, Java keystores, Docker's old auth file
	"*.ppk", ".git-credentials", "credentials", "kubeconfig", "*.kubeconfig", "*.jks", "*.keystore", ".dockercfg"}

// secretContent are the shapes of private keys and well-known tokens. Each has
// literals one of which any match contains: a cheap search for them decides
// whether the regular expression runs at all, which keeps the check of a large
// bundle at the speed of reading it.
var secretContent = sync.OnceValue(func() []secretShape {
	return []secretShape{
		{"a private key", []string{"PRIVATE KEY"}, false, regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
		{"an AWS access key id", []string{"AKIA", "ASIA"}, false, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"an AWS secret access key", []string{"aws_secret_access_key"}, true, regexp.MustCompile(`(?i)aws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}`)},
		{"a GitHub token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
		{"a Slack token", []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}, false, regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
		{"a Slack webhook", []string{"hooks.slack.com/services/"}, false, regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+`)},
		{"a Google API key", []string{"AIza"}, false, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
		{"a Stripe secret key", []string{"_live_"}, false, regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`)},
		{"an OpenAI or Anthropic key", []string{"sk-"}, false, regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b`)},
		{"an npm token", []string{"npm_"}, false, regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
		{"a PyPI token", []string{"pypi-"}, false, regexp.MustCompile(`\bpypi-AgE[A-Za-z0-9_-]{50,}`)},
		// a PEM private key base64-encoded again (a kubeconfig's client-key-data):
		// "-----BEGIN " then "PRIVATE KEY" at any of base64's three alignments
		{"a base64-encoded private key", []string{"LS0tLS1CRUdJTi"}, false, regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)`)},
		{"a PuTTY private key", []string{"PuTTY-User-Key-File-"}, false, regexp.MustCompile(`PuTTY-User-Key-File-\d+:[\s\S]*?Private-Lines:`)},
		{"a password in a URL", []string{"://"}, false, regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"]+:[^/\s@'"]{3,}@[A-Za-z0-9.-]`)},
	}
})

type secretShape struct {
	what    string
	needles []string // any of them, in the case given (or lower case, with fold)
	fold    bool
	re      *regexp.Regexp
}

// Check reads paths (relative to cwd, or absolute) through the path gate and
// returns the bundle with every problem found, in the order of paths; nothing
// outside root, or inside gitDirs, is read. Files are read, checked and counted
// in parallel. A file over the size limit is refused.
func Check(root, cwd string, paths []string, lim Limits, count Counter, gitDirs ...string) *Result {
	return check(root, cwd, paths, lim, count, nil, gitDirs)
}

// MaxSourceBytes is the largest file Fit reads to send in part.
const MaxSourceBytes = 16 << 20

// Fit is Check, but a Python or Go file over the size limit is sent in part
// (excerpt.Fit): its imports, its outline and the definitions want names,
// within the limit. The limit applies to what is sent; secrets are looked
// for in the whole file.
func Fit(root, cwd string, paths []string, lim Limits, count Counter, want excerpt.Want, gitDirs ...string) *Result {
	return check(root, cwd, paths, lim, count, &want, gitDirs)
}

func check(root, cwd string, paths []string, lim Limits, count Counter, want *excerpt.Want, gitDirs []string) *Result {
	res := &Result{Files: []File{}, Problems: []Problem{}}
	tree, err := fsafe.OpenTree(root, gitDirs...)
	if err != nil {
		res.Problems = append(res.Problems, Problem{"", err.Error()})
		return res
	}
	defer tree.Close()
	type job struct {
		rel  string
		file File
		why  string
	}
	jobs := make([]job, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		rel, err := tree.Resolve(cwd, p)
		switch {
		case err != nil:
			jobs = append(jobs, job{rel: p, why: reason(err)})
		case slices.Contains(strings.Split(filepath.ToSlash(p), "/"), ".."):
			// seed 002 N0: a context path never goes through "..", even when it
			// would come back inside
			jobs = append(jobs, job{rel: p, why: `goes through "..": name files inside the repository from where you are, or with -C`})
		case seen[rel]:
		default:
			seen[rel] = true
			jobs = append(jobs, job{rel: rel, why: SecretName(rel, lim.SecretPatterns)})
		}
	}
	parallel(len(jobs), func(i int) {
		j := &jobs[i]
		if j.why != "" {
			return
		}
		j.file, j.why = read(tree, j.rel, lim.MaxFileBytes, want)
		if j.why == "" && count != nil {
			j.file.Tokens = count(j.file.Content)
		}
	})
	for _, j := range jobs {
		if j.why != "" {
			res.Problems = append(res.Problems, Problem{j.rel, j.why})
			continue
		}
		res.Tokens += j.file.Tokens
		res.Files = append(res.Files, j.file)
	}
	if count != nil && res.Tokens > lim.MaxTokens {
		res.Problems = append(res.Problems, Problem{"", fmt.Sprintf("the context is %d tokens, over the budget of %d tokens", res.Tokens, lim.MaxTokens)})
	}
	return res
}

// parallel calls fn(0) … fn(n-1) on as many goroutines as there are CPUs.
func parallel(n int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(n, runtime.GOMAXPROCS(0)); w++ {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

func reason(err error) string {
	if pe, ok := err.(*fsafe.PathError); ok {
		return pe.Reason
	}
	return err.Error()
}

// SecretName says why a file's name marks it as a secret, or "".
func SecretName(rel string, extra []string) string {
	name := strings.ToLower(path.Base(rel))
	for _, pat := range append(append([]string{}, secretNames...), extra...) {
		if ok, _ := path.Match(strings.ToLower(pat), name); ok {
			return fmt.Sprintf("its name looks like a secret (%s)", pat)
		}
	}
	return ""
}

// SecretContent says what secret the content holds, or "".
func SecretContent(b []byte) string {
	what := ""
	eachSecret(b, func(i int) bool {
		what = "it contains " + secretContent()[i].what
		return false
	})
	return what
}

// Redact replaces what has the shape of a secret in s (the content Check
// refuses) with a note of what was there: for text that is not a file of the
// bundle but goes to a model all the same, such as a test run's output.
func Redact(s string) string {
	b := []byte(s)
	// each round removes every match of one shape; a note never has one, so
	// this ends, and the bound only guards that
	for changed, round := true, 0; changed && round <= len(secretContent()); round++ {
		changed = false
		eachSecret(b, func(i int) bool {
			sc := secretContent()[i]
			b, changed = sc.re.ReplaceAll(b, []byte("[redacted: "+sc.what+"]")), true
			return false // b changed: look again from the first shape
		})
	}
	return string(b)
}

// eachSecret calls fn with the index of each content shape found in b, in
// the table's order, until fn returns false; the literal prefilter decides
// whether a shape's regular expression runs at all.
func eachSecret(b []byte, fn func(i int) bool) {
	var lower []byte
	for i, s := range secretContent() {
		hay := b
		if s.fold {
			if lower == nil {
				lower = bytes.ToLower(b)
			}
			hay = lower
		}
		if containsAny(hay, s.needles) && s.re.Match(b) && !fn(i) {
			return
		}
	}
}

func containsAny(b []byte, needles []string) bool {
	for _, n := range needles {
		if bytes.Contains(b, []byte(n)) {
			return true
		}
	}
	return false
}

// cause is an error without the path it names, which the caller prints itself.
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func read(tree *fsafe.Tree, rel string, maxBytes int, want *excerpt.Want) (File, string) {
	readMax := maxBytes
	if want != nil {
		readMax = max(maxBytes, MaxSourceBytes)
	}
	fi, err := tree.Stat(rel)
	switch {
	case err != nil:
		return File{}, "cannot be read: " + cause(err)
	case fi.IsDir():
		return File{}, "is a directory; name the files"
	case !fi.Mode().IsRegular():
		return File{}, "is not a regular file"
	case fi.Size() > int64(readMax):
		return File{}, fmt.Sprintf("is %d bytes, over the limit of %d bytes", fi.Size(), readMax)
	}
	b, _, _, err := tree.ReadFile(rel)
	if err != nil {
		return File{}, "cannot be read: " + cause(err)
	}
	if len(b) > readMax {
		return File{}, fmt.Sprintf("is %d bytes, over the limit of %d bytes", len(b), readMax)
	}
	return Accept(rel, b, maxBytes, want)
}

// Accept checks a file's bytes (binary, secrets) and fits them into
// maxBytes: the whole file, or with want a part of a large one. The reason is
// "" when the file is accepted.
func Accept(rel string, b []byte, maxBytes int, want *excerpt.Want) (File, string) {
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return File{}, "is a binary file"
	}
	if why := SecretContent(b); why != "" {
		return File{}, why
	}
	text := string(b) // one copy: the content sent is the source, whole, until an excerpt replaces it
	f := File{Path: rel, Bytes: len(b), Content: text, Sent: "whole", Size: len(b), Source: text}
	if len(b) <= maxBytes {
		return f, ""
	}
	if want == nil {
		return File{}, fmt.Sprintf("is %d bytes, over the limit of %d bytes", len(b), maxBytes)
	}
	p, err := excerpt.Fit(rel, f.Source, *want, maxBytes)
	if err != nil {
		return File{}, err.Error()
	}
	f.Content, f.Bytes, f.Sent = p.Content, len(p.Content), p.Describe()
	return f, ""
}
