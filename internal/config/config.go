// Package config reads .git-tdd.toml strictly: every key has a default, and an
// unknown key or a wrong type is an error that names the file and line.
package config

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/git-tdd/git-tdd/internal/term"
)

// FileName is the configuration file at the root of a repository.
const FileName = ".git-tdd.toml"

// Config is .git-tdd.toml (DESIGN §8).
type Config struct {
	Test     Test     `toml:"test"`
	Worktree Worktree `toml:"worktree"`
	Lint     Lint     `toml:"lint"`
	Diffgate Diffgate `toml:"diffgate"`
	Write    Write    `toml:"write"`
	Patch    Patch    `toml:"patch"`
	Context  Context  `toml:"context"`
	Agent    Agent    `toml:"agent"`
	Issue    Issue    `toml:"issue"`
	Sandbox  Sandbox  `toml:"sandbox"`
}

// Sandbox is what an agent's sandbox allows besides its worktree and its
// temporary directory (package sandbox): paths under "~/" are under the
// user's home directory, every other one is absolute.
type Sandbox struct {
	// Write are more paths an agent may write (a tool's cache or state);
	// those that do not exist on a machine are left out there.
	Write []string `toml:"write"`
	// Deny are more paths no confined program may read, besides the
	// credentials the sandbox always hides.
	Deny []string `toml:"deny"`
}

// CheckSandboxPath refuses a path [sandbox] or git config tdd.sandbox.write
// could not mean: empty, relative, or not clean ("~/a/../b").
func CheckSandboxPath(p string) error {
	rest, home := strings.CutPrefix(p, "~/")
	if !home {
		rest = p
	}
	switch {
	case p == "" || strings.ContainsRune(p, 0):
		return fmt.Errorf("%q is not a path", p)
	case !home && !path.IsAbs(p):
		return fmt.Errorf("%q is neither absolute nor under ~/", p)
	case home && (rest == "" || path.Clean(rest) != rest || strings.HasPrefix(rest, "../") || rest == ".." || path.IsAbs(rest)):
		return fmt.Errorf("%q is not a clean path under ~/", p)
	case !home && path.Clean(p) != p:
		return fmt.Errorf("%q is not a clean path (write it as %q)", p, path.Clean(p))
	}
	return nil
}

// Test is how the tests run.
type Test struct {
	Command    []string `toml:"command"`
	Runner     string   `toml:"runner"` // pytest, go, junit ({junit} in the command) or generic
	Timeout    Duration `toml:"timeout"`
	MaxRetries int      `toml:"max_retries"`
	TestPaths  []string `toml:"test_paths"`
	// Freeze are more globs frozen at red, besides test_paths and the test
	// configuration (DESIGN §5).
	Freeze []string `toml:"freeze"`
	// RedScope is what red runs: "changed" (the test files this branch added
	// or changed) or "all".
	RedScope string `toml:"red_scope"`
	// Env is what a sealed test run adds to the caller's environment after the
	// injection variables are removed; only this committed table can set them.
	Env map[string]string `toml:"env"`
	// Network lets the tests, confined, reach the network; off, they cannot
	// create an internet socket (DESIGN §7).
	Network bool `toml:"network"`
}

// jsTools are the programs that run JavaScript tests: a command that names
// one (as its program, or a word of a sh -c script) loads the runner's
// configuration and the packages the lock file pins.
var jsTools = map[string]bool{"npx": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "bunx": true,
	"node": true, "vitest": true, "jest": true, "mocha": true}

// JSFrozen are the files that decide how a JavaScript test run goes, frozen
// with the tests when runner = "junit" runs a JavaScript tool: the runners'
// configuration (a vitest.config.ts with setupFiles that mock the module
// under test would pass a red test against a stub) and the setup files they
// name by convention, Babel's (jest transforms the tests with it),
// package.json (its "jest" key, "imports" and "exports" redirect modules),
// the lock files and .npmrc (what npm ci installs), and __mocks__ (jest puts
// a module there in place of the package of its name, with no jest.mock call).
var JSFrozen = []string{"**/vitest.config.*", "**/vitest.workspace.*", "**/vite.config.*", "**/vitest.setup.*",
	"**/jest.config.*", "**/jest.setup.*", "**/setupTests.*", "**/babel.config.*", "**/.babelrc", "**/.babelrc.*",
	"**/package.json", "**/package-lock.json", "**/npm-shrinkwrap.json", "**/yarn.lock", "**/pnpm-lock.yaml",
	"**/bun.lock", "**/bun.lockb", "**/.npmrc", "**/__mocks__/**"}

// FreezeGlobs are the globs frozen at red besides test_paths: [test] freeze,
// and JSFrozen when the junit runner runs a JavaScript tool.
func (t Test) FreezeGlobs() []string {
	out := append([]string{}, t.Freeze...)
	if t.Runner == "junit" && t.runsJS() {
		out = append(out, JSFrozen...)
	}
	return out
}

func (t Test) runsJS() bool {
	for _, a := range t.Command {
		for _, w := range strings.Fields(a) {
			if jsTools[path.Base(w)] {
				return true
			}
		}
	}
	return false
}

// ReportPlaceholder stands, in [test] command and [test] env, for the JUnit
// report runner = "junit" reads: a fresh path outside the worktree each run.
const ReportPlaceholder = "{junit}"

// namesReport reports whether the command or its environment says where the
// JUnit report goes.
func (t Test) namesReport() bool {
	for _, a := range t.Command {
		if strings.Contains(a, ReportPlaceholder) {
			return true
		}
	}
	for _, v := range t.Env {
		if strings.Contains(v, ReportPlaceholder) {
			return true
		}
	}
	return false
}

// Worktree is where a workflow's worktree and branch go.
type Worktree struct {
	Dir    string     `toml:"dir"`
	Branch string     `toml:"branch"`
	Setup  [][]string `toml:"setup"`
	// SetupNetwork lets the setup commands, confined like the tests, reach
	// the network: installers (npm ci, pip install) fetch what they install.
	SetupNetwork bool `toml:"setup_network"`
}

// Lint is the optional lint command.
type Lint struct {
	Command []string `toml:"command"`
}

// Diffgate holds the review thresholds.
type Diffgate struct {
	ChangeRatioThreshold float64 `toml:"change_ratio_threshold"`
	ReplacementRatio     float64 `toml:"replacement_ratio"`
	// AllowedSigners is an OpenSSH allowed-signers file in the repository:
	// with it, verify requires every commit to be signed by a key it lists,
	// as committed at the range's base.
	AllowedSigners string `toml:"allowed_signers"`
	// Symbols turns on the code-aware rule: a Python or Go file that loses a
	// definition needs review whatever its ratio.
	Symbols bool `toml:"symbols"`
	// SymbolsIgnore are globs of definition names the rule leaves out
	// ("test_*", "_*"), matched against the name and its last part.
	SymbolsIgnore []string `toml:"symbols_ignore"`
	// MaxShownBytes is the most of one file's diff a review prints (its
	// changed lines and their context); a larger one is flagged NOT SHOWN
	// and needs its own APPROVE. Lines are held whole up to it, so it has
	// a ceiling (MaxShownCeiling).
	MaxShownBytes int64 `toml:"max_shown_bytes"`
}

// MaxShownCeiling bounds [diffgate] max_shown_bytes: a review holds a line of
// up to that size in memory.
const MaxShownCeiling = 16 << 20

// Write holds the safe-write rules.
type Write struct {
	ApprovalLines int  `toml:"approval_lines"`
	AllowForce    bool `toml:"allow_force"`
}

// Patch holds when a file counts as large.
type Patch struct {
	LargeLines int `toml:"large_lines"`
	LargeBytes int `toml:"large_bytes"`
}

// Context holds the context limits.
type Context struct {
	MaxFileBytes   int      `toml:"max_file_bytes"`
	MaxTokens      int      `toml:"max_tokens"`
	SecretPatterns []string `toml:"secret_patterns"`
}

// Agent is the agent that `git tdd run` drives.
type Agent struct {
	Command   []string `toml:"command"`
	Provider  string   `toml:"provider"`
	Model     string   `toml:"model"`
	BaseURL   string   `toml:"base_url"`
	APIKeyEnv string   `toml:"api_key_env"`
	Mode      string   `toml:"mode"`
	MaxTokens int      `toml:"max_tokens"`
	Timeout   Duration `toml:"timeout"`
	// Network lets the agent's command reach the network from its sandbox
	// (a CLI that calls its model's API); off, it reaches none.
	Network bool `toml:"network"`
	// Ports limit the network to these TCP ports (443 for an API over
	// HTTPS); they turn it on. Landlock's network rules (ABI 4) enforce them.
	Ports []uint16 `toml:"ports"`
}

// Issue is the issue-drafting workflow, and what an issue is called.
type Issue struct {
	// Pattern is a regular expression (RE2) that names issues besides
	// positive integers, matched whole: "PROJ-[0-9]+" for Jira keys.
	Pattern       string   `toml:"pattern"`
	Drafter       []string `toml:"drafter"`
	Reviewer      []string `toml:"reviewer"`
	Template      string   `toml:"template"`
	ReviewPrompt  string   `toml:"review_prompt"`
	Repo          string   `toml:"repo"`
	MaxIterations int      `toml:"max_iterations"`
	Timeout       Duration `toml:"timeout"` // for each drafter and reviewer call
	// Network lets the drafter and reviewer reach the network from their
	// sandbox (a CLI that calls its model's API); off, they reach none.
	Network bool `toml:"network"`
	// Ports limit the network to these TCP ports, as [agent] ports do.
	Ports []uint16 `toml:"ports"`
}

// Matcher is [issue] pattern anchored at both ends, so that it matches a
// whole name; nil when none is set.
func (i Issue) Matcher() (*regexp.Regexp, error) {
	if i.Pattern == "" {
		return nil, nil
	}
	if _, err := regexp.Compile(i.Pattern); err != nil {
		return nil, fmt.Errorf("%q is not a regular expression: %v", i.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return regexp.Compile("^(?:" + i.Pattern + ")$")
}

// UserFile is where a user's own settings live, under the XDG configuration
// directory: only its [agent] table is read.
const UserFile = "git-tdd/config.toml"

// OverrideAgent reads a user's [agent] table (name is used in errors) over a.
func OverrideAgent(a Agent, data []byte, name string) (Agent, error) {
	var doc struct {
		Agent *Agent `toml:"agent"`
	}
	doc.Agent = &a
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return a, &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		msg := fmt.Sprintf("unknown key %q (only [agent] is read here)", k.String())
		if near := Nearest(k.String()); strings.HasPrefix(near, "agent.") {
			msg = fmt.Sprintf("unknown key %q (did you mean %q? only [agent] is read here)", k.String(), near)
		}
		return a, &Error{File: name, Line: keyLine(string(data), k), Msg: msg}
	}
	c := Default()
	c.Agent = a
	if err := c.validate(); err != nil {
		return a, &Error{File: name, Msg: err.msg}
	}
	return a, nil
}

// Duration is a TOML string such as "300s" or "5m".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (write it like \"300s\" or \"5m\")", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default is the configuration without a file.
func Default() *Config {
	return &Config{
		Test: Test{
			Command: []string{"pytest", "-v", "--tb=short"}, Runner: "pytest",
			Timeout: Duration{300 * time.Second}, MaxRetries: 3, RedScope: "changed",
			TestPaths: []string{"tests/**", "**/test_*.py", "**/*_test.py", "**/*_test.go"},
		},
		Worktree: Worktree{Dir: "../{repo}-issue-{issue}", Branch: "feat/issue-{issue}", SetupNetwork: true},
		Diffgate: Diffgate{ChangeRatioThreshold: 0.5, ReplacementRatio: 0.8, Symbols: true, MaxShownBytes: 1 << 20},
		Write:    Write{ApprovalLines: 100, AllowForce: true},
		Patch:    Patch{LargeLines: 500, LargeBytes: 15000},
		Context:  Context{MaxFileBytes: 102400, MaxTokens: 200000},
		Agent:    Agent{Mode: "text", MaxTokens: 8192, Timeout: Duration{10 * time.Minute}},
		Issue: Issue{
			Template:      "docs/templates/0101-issue-template.md",
			ReviewPrompt:  "docs/skills/0701c-Issue-Review-Prompt.md",
			MaxIterations: 20,
			Timeout:       Duration{10 * time.Minute},
		},
	}
}

// Error is a configuration error at a place in a file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Parse reads a configuration over the defaults; name is used in errors.
func Parse(data []byte, name string) (*Config, error) {
	c := Default()
	md, err := toml.Decode(string(data), c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Msg: strings.TrimPrefix(pe.Message, "toml: ")}
		}
		return nil, decodeError(name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		msg := fmt.Sprintf("unknown key %q", k.String())
		if near := Nearest(k.String()); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, &Error{File: name, Line: keyLine(string(data), k), Msg: msg}
	}
	if err := c.validate(); err != nil {
		return nil, &Error{File: name, Line: keyLine(string(data), toml.Key(strings.Split(err.key, "."))), Msg: err.msg}
	}
	return c, nil
}

// Keys are every key a configuration may set, as "table.key".
func Keys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" || name == "-" {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(Duration{}) {
				walk(f.Type, prefix+name+".")
				continue
			}
			out = append(out, prefix+name)
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	return out
}

// Nearest is the known key a mistyped one most likely meant, or "" when none
// is close: at most a third of its letters differ.
func Nearest(key string) string { return term.Nearest(key, Keys()) }

type invalid struct{ key, msg string }

func (c *Config) validate() *invalid {
	bad := func(key, format string, args ...any) *invalid {
		return &invalid{key, key + ": " + fmt.Sprintf(format, args...)}
	}
	switch {
	case len(c.Test.Command) == 0 || c.Test.Command[0] == "":
		return bad("test.command", "must name a program")
	case !oneOf(c.Test.Runner, "pytest", "go", "junit", "generic"):
		return bad("test.runner", "must be \"pytest\", \"go\", \"junit\" or \"generic\", not %q", c.Test.Runner)
	case c.Test.Runner == "junit" && !c.Test.namesReport():
		return bad("test.runner", "\"junit\" reads the report the command writes to {junit}: put {junit} in test.command (e.g. \"--outputFile={junit}\") or in a test.env value")
	case !oneOf(c.Test.RedScope, "changed", "all"):
		return bad("test.red_scope", "must be \"changed\" or \"all\", not %q", c.Test.RedScope)
	case c.Test.Timeout.Duration <= 0:
		return bad("test.timeout", "must be positive")
	case c.Test.MaxRetries < 1:
		return bad("test.max_retries", "must be at least 1")
	case c.Worktree.Dir == "" || c.Worktree.Branch == "":
		return bad("worktree.branch", "dir and branch must not be empty")
	case !strings.Contains(c.Worktree.Branch, "{issue}"):
		return bad("worktree.branch", "must contain {issue}")
	case c.Diffgate.ChangeRatioThreshold <= 0:
		return bad("diffgate.change_ratio_threshold", "must be positive")
	case c.Diffgate.ReplacementRatio <= 0:
		return bad("diffgate.replacement_ratio", "must be positive")
	case c.Diffgate.MaxShownBytes < 1 || c.Diffgate.MaxShownBytes > MaxShownCeiling:
		return bad("diffgate.max_shown_bytes", "must be between 1 and %d (16 MiB)", MaxShownCeiling)
	case c.Write.ApprovalLines < 0:
		return bad("write.approval_lines", "must not be negative")
	case c.Patch.LargeLines < 1 || c.Patch.LargeBytes < 1:
		return bad("patch.large_lines", "large_lines and large_bytes must be positive")
	case c.Context.MaxFileBytes < 1 || c.Context.MaxTokens < 1:
		return bad("context.max_file_bytes", "max_file_bytes and max_tokens must be positive")
	case !oneOf(c.Agent.Provider, "", "anthropic", "openai"):
		return bad("agent.provider", "must be \"anthropic\" or \"openai\", not %q", c.Agent.Provider)
	case !oneOf(c.Agent.Mode, "text", "edit"):
		return bad("agent.mode", "must be \"text\" or \"edit\", not %q", c.Agent.Mode)
	case c.Issue.MaxIterations < 1:
		return bad("issue.max_iterations", "must be at least 1")
	case c.Issue.Timeout.Duration <= 0:
		return bad("issue.timeout", "must be positive")
	case c.Issue.ReviewPrompt == "":
		return bad("issue.review_prompt", "must name the review prompt's file")
	case c.Issue.Repo != "" && !validRepo(c.Issue.Repo):
		return bad("issue.repo", "must be owner/name or host/owner/name, not %q", c.Issue.Repo)
	}
	if _, err := c.Issue.Matcher(); err != nil {
		return bad("issue.pattern", "%v", err)
	}
	for _, list := range []struct {
		key   string
		ports []uint16
	}{{"agent.ports", c.Agent.Ports}, {"issue.ports", c.Issue.Ports}} {
		if slices.Contains(list.ports, 0) {
			return bad(list.key, "0 is not a port: give ports from 1 to 65535")
		}
	}
	for _, list := range []struct {
		key   string
		paths []string
	}{{"sandbox.write", c.Sandbox.Write}, {"sandbox.deny", c.Sandbox.Deny}} {
		for _, p := range list.paths {
			if err := CheckSandboxPath(p); err != nil {
				return bad(list.key, "%v", err)
			}
		}
	}
	for k := range c.Test.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return bad("test.env", "%q is not a variable name", k)
		}
	}
	for _, g := range c.Diffgate.SymbolsIgnore {
		if _, err := path.Match(g, ""); err != nil {
			return bad("diffgate.symbols_ignore", "%q is not a valid glob", g)
		}
	}
	for i, s := range c.Worktree.Setup {
		if len(s) == 0 {
			return bad("worktree.setup", "command %d is empty", i+1)
		}
	}
	return nil
}

// validRepo accepts gh's repository names: owner/name or host/owner/name.
func validRepo(r string) bool {
	parts := strings.Split(r, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.HasPrefix(p, "-") || strings.ContainsAny(p, " \t\n\x00") {
			return false
		}
	}
	return true
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

var decodeErrRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): (.*)$`)
})

// decodeError turns the decoder's "toml: line N (last key K): msg" into file:line: K: msg.
func decodeError(name string, err error) error {
	m := decodeErrRe().FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	return &Error{File: name, Line: line, Msg: m[2] + ": " + m[3]}
}

var tableRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[+\s*([^\]]+?)\s*\]+\s*(#.*)?$`)
})

// keyLine finds the line where key is set, for error messages; 0 when unsure.
func keyLine(src string, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	table, leaf := strings.Join(key[:len(key)-1], "."), key[len(key)-1]
	current := ""
	for i, line := range strings.Split(src, "\n") {
		if m := tableRe().FindStringSubmatch(line); m != nil {
			current = strings.ReplaceAll(m[1], " ", "")
			if current == strings.Join(key, ".") {
				return i + 1
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if (current == table && k == leaf) || (current == "" && k == strings.Join(key, ".")) {
			return i + 1
		}
	}
	return 0
}
