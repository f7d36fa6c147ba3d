package issueflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-tdd/git-tdd/internal/runner"
	"github.com/git-tdd/git-tdd/internal/term"
)

// GitHub runs gh: the only part of the workflow that talks to GitHub, and only
// with what a human approved. No model ever runs it (seed 004 §3.11).
type GitHub struct {
	Path    string // gh, resolved on PATH
	Repo    string // [issue] repo: owner/name or host/owner/name; "" is gh's own choice
	Dir     string // where it runs: the repository, so that gh's own choice is this repository's remote
	Env     []string
	Timeout time.Duration
}

// GHEnv is the environment gh runs in: the user's (its credentials), with git's
// location variables dropped and gh told never to prompt, page or colour.
func GHEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_OBJECT_DIRECTORY",
			"GH_FORCE_TTY", "CLICOLOR_FORCE", "GH_PAGER", "PAGER", "GH_PROMPT_DISABLED", "NO_COLOR", "GH_NO_UPDATE_NOTIFIER":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "NO_COLOR=1", "GH_PAGER=cat")
}

func (g *GitHub) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	out, err := runner.Capture(ctx, runner.Call{Argv: append([]string{g.Path}, args...), Dir: g.Dir, Env: g.Env,
		Stdin: stdin, Timeout: g.Timeout, Stderr: &stderr, Limit: 16 << 20})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if msg := tailLines(stderr.String(), 6); msg != "" {
			return out, fmt.Errorf("gh %s %s: %s", args[0], args[1], msg)
		}
		return out, fmt.Errorf("gh %s %s: %w", args[0], args[1], err)
	}
	return out, nil
}

// repoArgs names the repository, when the configuration does.
func (g *GitHub) repoArgs() []string {
	if g.Repo == "" {
		return nil
	}
	return []string{"--repo=" + g.Repo}
}

// AuthStatus is N1's check that gh can file issues.
func (g *GitHub) AuthStatus(ctx context.Context) error {
	args := []string{"auth", "status"}
	if parts := strings.Split(g.Repo, "/"); len(parts) == 3 {
		args = append(args, "--hostname="+parts[0])
	}
	_, err := g.run(ctx, nil, args...)
	return err
}

// Labels are the repository's label names.
func (g *GitHub) Labels(ctx context.Context) ([]string, error) {
	out, err := g.run(ctx, nil, append([]string{"label", "list"}, append(g.repoArgs(), "--json=name", "--limit=1000")...)...)
	if err != nil {
		return nil, err
	}
	return ParseLabelNames(out)
}

// CreateLabel creates one label; gh picks its colour.
func (g *GitHub) CreateLabel(ctx context.Context, name string) error {
	_, err := g.run(ctx, nil, append(append([]string{"label", "create"}, g.repoArgs()...), "--", name)...)
	return err
}

// CreateIssue files the issue. The body goes on gh's standard input, so what is
// filed is exactly the bytes the human approved, whatever happens to the file.
func (g *GitHub) CreateIssue(ctx context.Context, title string, body []byte, labels []string) (int, string, error) {
	args := append([]string{"issue", "create"}, g.repoArgs()...)
	args = append(args, "--title="+title, "--body-file=-")
	for _, l := range labels {
		args = append(args, "--label="+labelArg(l))
	}
	out, err := g.run(ctx, body, args...)
	if err != nil {
		return 0, "", err
	}
	n, url, ok := ParseIssueURL(out)
	if !ok {
		return 0, "", fmt.Errorf("gh issue create printed no issue URL: %s", tailLines(string(out), 3))
	}
	return n, url, nil
}

// FindIssue looks for an issue with this title and body among the user's
// latest: one an interrupted or failed attempt may have filed after all, so
// that it is not filed twice. It lists issues rather than searching them:
// GitHub's search index lags behind a new issue.
func (g *GitHub) FindIssue(ctx context.Context, title string, body []byte) (int, string, bool, error) {
	args := append([]string{"issue", "list"}, g.repoArgs()...)
	args = append(args, "--state=all", "--author=@me", "--json=number,url,title,body", "--limit=50")
	out, err := g.run(ctx, nil, args...)
	if err != nil {
		return 0, "", false, err
	}
	return MatchIssue(out, title, body)
}

// ViewIssue reads issue n: whether it exists, and its title, body and URL.
func (g *GitHub) ViewIssue(ctx context.Context, n int) (Issue, bool, error) {
	args := append([]string{"issue", "view", strconv.Itoa(n)}, g.repoArgs()...)
	out, err := g.run(ctx, nil, append(args, "--json=number,url,title,body")...)
	if err != nil {
		if strings.Contains(err.Error(), "Could not resolve to an issue") {
			return Issue{}, false, nil
		}
		return Issue{}, false, err
	}
	var is Issue
	if err := json.Unmarshal(out, &is); err != nil {
		return Issue{}, false, fmt.Errorf("reading gh issue view: %w", err)
	}
	return is, is.Number == n, nil
}

// Issue is an issue as gh shows it.
type Issue struct {
	Number      int
	URL         string
	Title, Body string
}

// ResolveRepo asks gh which repository it would file in, so that it is shown
// before the human approves and stays the same however the remotes change.
func (g *GitHub) ResolveRepo(ctx context.Context) (string, error) {
	out, err := g.run(ctx, nil, "repo", "view", "--json=nameWithOwner", "--jq=.nameWithOwner")
	if err != nil {
		return "", err
	}
	repo := strings.TrimSpace(string(out))
	if repo == "" || strings.ContainsAny(repo, " \t\n") {
		return "", errors.New("gh repo view named no repository")
	}
	return repo, nil
}

// SameText compares an issue's body as GitHub keeps it with what was sent.
func SameText(a, b string) bool {
	norm := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }
	return norm(a) == norm(b)
}

var issueURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^https?://\S+/issues/([0-9]+)$`)
})

// ParseIssueURL finds the issue's URL and number in gh issue create's output:
// its last line that is one.
func ParseIssueURL(out []byte) (int, string, bool) {
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(ls) - 1; i >= 0; i-- {
		l := strings.TrimSpace(ls[i])
		if m := issueURL().FindStringSubmatch(l); m != nil {
			n, err := strconv.Atoi(m[1])
			if err == nil && n > 0 {
				return n, l, true
			}
		}
	}
	return 0, "", false
}

// ParseLabelNames reads gh label list --json name.
func ParseLabelNames(out []byte) ([]string, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	var labels []struct{ Name string }
	if err := json.Unmarshal(out, &labels); err != nil {
		return nil, fmt.Errorf("reading gh label list: %w", err)
	}
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = l.Name
	}
	return names, nil
}

// MissingLabels are the wanted labels the repository lacks; GitHub compares
// label names without case.
func MissingLabels(want, have []string) []string {
	exists := map[string]bool{}
	for _, h := range have {
		exists[strings.ToLower(h)] = true
	}
	var out []string
	for _, w := range want {
		if !exists[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// MatchIssue finds in gh issue list --json output the issue with this title
// and body (line ends aside: GitHub keeps \r\n).
func MatchIssue(list []byte, title string, body []byte) (int, string, bool, error) {
	if len(bytes.TrimSpace(list)) == 0 {
		return 0, "", false, nil
	}
	var issues []Issue
	if err := json.Unmarshal(list, &issues); err != nil {
		return 0, "", false, fmt.Errorf("reading gh issue list: %w", err)
	}
	for _, is := range issues {
		if is.Title == title && SameText(StripAuditComment(is.Body), StripAuditComment(string(body))) {
			return is.Number, is.URL, true, nil
		}
	}
	return 0, "", false, nil
}

// labelArg quotes a label for gh's --label, which reads a comma-separated
// (CSV) list: a label with a quote or edge spaces is quoted.
func labelArg(l string) string {
	if !strings.ContainsAny(l, "\"") && strings.TrimSpace(l) == l {
		return l
	}
	return `"` + strings.ReplaceAll(l, `"`, `""`) + `"`
}

// tailLines is the last n non-empty lines of s, made safe for a terminal.
func tailLines(s string, n int) string {
	var ls []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, term.Line(l, 200))
		}
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "; ")
}

// LookGH finds gh on PATH.
func LookGH(getenv func(string) string) (string, error) {
	path, err := lookPath("gh", getenv("PATH"))
	if err != nil {
		return "", fmt.Errorf("gh is not installed or not on PATH (it files the issue): see https://cli.github.com")
	}
	return path, nil
}

// lookPath finds an executable in the directories of path, like exec.LookPath
// but against the given PATH, and never in the current directory.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		if isExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	for _, dir := range strings.Split(path, ":") {
		if dir == "" || !strings.HasPrefix(dir, "/") {
			continue // an empty or relative PATH entry would run whatever the current directory holds
		}
		if p := dir + "/" + name; isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
