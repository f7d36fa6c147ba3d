// Package contextcheck decides which files may be handed to an agent as context
// (seed 002, N0): inside the repository, no secrets by name or by content, and
// within the size and token budgets.
package contextcheck

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Limits are the budgets and the extra secret patterns (glob patterns on the
// file name, added to the built-in ones) of [context].
type Limits = config.Context

// File is one accepted file.
type File struct {
	Path    string `json:"path"` // relative to the repository root, with slashes
	Bytes   int    `json:"bytes"`
	Tokens  int    `json:"tokens"`
	Content string `json:"content"`
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
var secretNames = []string{".env", ".env.*", "*.pem", "*.key", "*secret*", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12", "*.pfx", ".netrc", ".pgpass"}

// secretContent are the shapes of private keys and well-known tokens.
var secretContent = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a private key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{"an AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"an AWS secret access key", regexp.MustCompile(`(?i)aws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}`)},
	{"a GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{"a Slack webhook", regexp.MustCompile(`https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"a Stripe secret key", regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`)},
	{"an OpenAI or Anthropic key", regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b`)},
}

// Check reads paths (relative to cwd, or absolute) through the path gate and
// returns the bundle with every problem found; nothing outside root is read.
func Check(root, cwd string, paths []string, lim Limits, count Counter) *Result {
	res := &Result{Files: []File{}, Problems: []Problem{}}
	seen := map[string]bool{}
	for _, p := range paths {
		abs, rel, err := fsafe.Resolve(root, cwd, p)
		if err != nil {
			res.Problems = append(res.Problems, Problem{p, reason(err)})
			continue
		}
		if seen[rel] {
			continue
		}
		seen[rel] = true
		if why := SecretName(rel, lim.SecretPatterns); why != "" {
			res.Problems = append(res.Problems, Problem{rel, why})
			continue
		}
		f, why := read(abs, rel, lim.MaxFileBytes)
		if why != "" {
			res.Problems = append(res.Problems, Problem{rel, why})
			continue
		}
		if count != nil {
			f.Tokens = count(f.Content)
		}
		res.Tokens += f.Tokens
		res.Files = append(res.Files, f)
	}
	if count != nil && res.Tokens > lim.MaxTokens {
		res.Problems = append(res.Problems, Problem{"", fmt.Sprintf("the context is %d tokens, over the budget of %d tokens", res.Tokens, lim.MaxTokens)})
	}
	return res
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
	for _, s := range secretContent {
		if s.re.Match(b) {
			return "it contains " + s.what
		}
	}
	return ""
}

func read(abs, rel string, maxBytes int) (File, string) {
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return File{}, "cannot be read: " + strings.TrimPrefix(err.Error(), "stat "+abs+": ")
	case fi.IsDir():
		return File{}, "is a directory; name the files"
	case !fi.Mode().IsRegular():
		return File{}, "is not a regular file"
	case fi.Size() > int64(maxBytes):
		return File{}, fmt.Sprintf("is %d bytes, over the limit of %d bytes", fi.Size(), maxBytes)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return File{}, "cannot be read: " + err.Error()
	}
	if len(b) > maxBytes {
		return File{}, fmt.Sprintf("is %d bytes, over the limit of %d bytes", len(b), maxBytes)
	}
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return File{}, "is a binary file"
	}
	if why := SecretContent(b); why != "" {
		return File{}, why
	}
	return File{Path: rel, Bytes: len(b), Content: string(b)}, ""
}
