package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c, err := Parse(nil, FileName)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Test.Command, " ") != "pytest -v --tb=short" || c.Test.Timeout.Duration != 300*time.Second ||
		c.Test.MaxRetries != 3 || c.Diffgate.ChangeRatioThreshold != 0.5 || c.Diffgate.ReplacementRatio != 0.8 ||
		c.Write.ApprovalLines != 100 || !c.Write.AllowForce || c.Patch.LargeLines != 500 || c.Patch.LargeBytes != 15000 ||
		c.Context.MaxFileBytes != 102400 || c.Context.MaxTokens != 200000 || c.Worktree.Branch != "feat/issue-{issue}" {
		t.Errorf("defaults differ from DESIGN §8: %+v", c)
	}
}

func TestParseOverrides(t *testing.T) {
	c, err := Parse([]byte(`
[test]
command = ["go", "test", "./..."]
runner = "go"
timeout = "2m"

[worktree]
setup = [["pip", "install", "-e", "."]]

[diffgate]
change_ratio_threshold = 0.7
`), FileName)
	if err != nil {
		t.Fatal(err)
	}
	if c.Test.Runner != "go" || c.Test.Timeout.Duration != 2*time.Minute || c.Diffgate.ChangeRatioThreshold != 0.7 ||
		c.Diffgate.ReplacementRatio != 0.8 || len(c.Worktree.Setup) != 1 || c.Test.MaxRetries != 3 {
		t.Errorf("%+v", c)
	}
}

// runner = "junit" takes {junit} in an argument or in a [test] env value.
func TestJUnitRunnerPlaceholder(t *testing.T) {
	for _, src := range []string{
		"[test]\nrunner = \"junit\"\ncommand = [\"npx\", \"vitest\", \"run\", \"--reporter=junit\", \"--outputFile={junit}\"]\n",
		"[test]\nrunner = \"junit\"\ncommand = [\"npx\", \"jest\"]\nenv = { JEST_JUNIT_OUTPUT_FILE = \"{junit}\" }\n",
	} {
		if c, err := Parse([]byte(src), FileName); err != nil || c.Test.Runner != "junit" {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, src, want string
		line            int
	}{
		{"unknown key", "[test]\ncomand = [\"x\"]\n", `unknown key "test.comand"`, 2},
		{"unknown table", "[tset]\ncommand = [\"x\"]\n", `unknown key "tset`, 1},
		{"syntax", "[test]\ncommand = [\"x\"\n", "expected a comma", 2},
		{"wrong type", "[diffgate]\nchange_ratio_threshold = \"high\"\n", "diffgate.change_ratio_threshold: incompatible types", 2},
		{"bad duration", "[test]\ntimeout = \"soon\"\n", "invalid duration", 2},
		{"bad runner", "\n[test]\nrunner = \"nose\"\n", "test.runner", 3},
		{"bad red scope", "[test]\nred_scope = \"some\"\n", "test.red_scope", 2},
		{"junit without its placeholder", "[test]\ncommand = [\"vitest\", \"run\"]\nrunner = \"junit\"\n", "test.runner: \"junit\" reads the report the command writes to {junit}", 3},
		{"empty command", "[test]\ncommand = []\n", "test.command", 2},
		{"zero threshold", "[diffgate]\nchange_ratio_threshold = 0.0\n", "must be positive", 2},
		{"zero shown bytes", "[diffgate]\nmax_shown_bytes = 0\n", "diffgate.max_shown_bytes: must be between 1 and 16777216", 2},
		{"shown bytes over the ceiling", "[diffgate]\n\nmax_shown_bytes = 16777217\n", "diffgate.max_shown_bytes", 3},
		{"bad agent mode", "[agent]\nmode = \"yolo\"\n", "agent.mode", 2},
		{"relative sandbox write", "[sandbox]\nwrite = [\"cache\"]\n", "sandbox.write: \"cache\" is neither absolute nor under ~/", 2},
		{"sandbox write out of home", "[sandbox]\nwrite = [\"~/../x\"]\n", "not a clean path under ~/", 2},
		{"sandbox write unclean", "[sandbox]\nwrite = [\"/a/../b\"]\n", "write it as \"/b\"", 2},
		{"empty sandbox deny", "\n[sandbox]\ndeny = [\"\"]\n", "sandbox.deny", 3},
		{"bad issue repo", "[issue]\nrepo = \"--web\"\n", "issue.repo", 2},
		{"empty review prompt", "[issue]\nreview_prompt = \"\"\n", "issue.review_prompt", 2},
		{"zero issue timeout", "[issue]\ntimeout = \"0s\"\n", "issue.timeout", 2},
		{"bad issue pattern", "[issue]\n\npattern = \"PROJ-[0-9\"\n", "issue.pattern: \"PROJ-[0-9\" is not a regular expression: missing closing ]", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), ".git-tdd.toml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a config error", err)
			}
			if ce.File != ".git-tdd.toml" || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, ce.Line, tt.line, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[test]\ncommand = [\"pytest\"]\ntimeout = \"1s\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, FileName)
		if err == nil && (len(c.Test.Command) == 0 || c.Test.Timeout.Duration <= 0) {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
	})
}

func TestNearest(t *testing.T) {
	for key, want := range map[string]string{
		"diffgate.change_ratio_threshhold": "diffgate.change_ratio_threshold",
		"test.comand":                      "test.command",
		"write.aproval_lines":              "write.approval_lines",
		"test.timeout":                     "test.timeout",
		"nothing.like.this":                "",
	} {
		if got := Nearest(key); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", key, got, want)
		}
	}
	_, err := Parse([]byte("[diffgate]\nchange_ratio_threshhold = 0.9\n"), ".git-tdd.toml")
	if err == nil || err.Error() != `.git-tdd.toml:2: unknown key "diffgate.change_ratio_threshhold" (did you mean "diffgate.change_ratio_threshold"?)` {
		t.Errorf("%v", err)
	}
}

func TestOverrideAgentDidYouMean(t *testing.T) {
	_, err := OverrideAgent(Default().Agent, []byte("[agent]\napi_key_evn = \"X\"\n"), "config.toml")
	if err == nil || !strings.Contains(err.Error(), `config.toml:2: unknown key "agent.api_key_evn" (did you mean "agent.api_key_env"?`) {
		t.Errorf("%v", err)
	}
}

func TestOverrideAgent(t *testing.T) {
	a := Default().Agent
	a.Provider, a.Model = "anthropic", "committed"
	got, err := OverrideAgent(a, []byte("[agent]\nmodel = \"mine\"\ntimeout = \"30s\"\n"), "config.toml")
	if err != nil || got.Model != "mine" || got.Provider != "anthropic" || got.Timeout.Duration.Seconds() != 30 {
		t.Errorf("%+v %v", got, err)
	}
	if _, err := OverrideAgent(a, []byte("[test]\ncommand = [\"true\"]\n"), "config.toml"); err == nil || !strings.Contains(err.Error(), "only [agent] is read here") {
		t.Errorf("a user file may not change the tests: %v", err)
	}
	if _, err := OverrideAgent(a, []byte("[agent]\nmode = \"yolo\"\n"), "config.toml"); err == nil {
		t.Error("an invalid mode")
	}
}

func TestDiffgateMaxShownBytes(t *testing.T) {
	c, err := Parse(nil, FileName)
	if err != nil || c.Diffgate.MaxShownBytes != 1<<20 {
		t.Fatalf("default: %d, %v", c.Diffgate.MaxShownBytes, err)
	}
	c, err = Parse([]byte("[diffgate]\nmax_shown_bytes = 4096\n"), FileName)
	if err != nil || c.Diffgate.MaxShownBytes != 4096 {
		t.Errorf("set: %d, %v", c.Diffgate.MaxShownBytes, err)
	}
}

func TestDiffgateSymbols(t *testing.T) {
	c, err := Parse(nil, FileName)
	if err != nil || !c.Diffgate.Symbols || len(c.Diffgate.SymbolsIgnore) != 0 {
		t.Fatalf("defaults: symbols %v, symbols_ignore %q, %v", c.Diffgate.Symbols, c.Diffgate.SymbolsIgnore, err)
	}
	c, err = Parse([]byte("[diffgate]\nsymbols = false\nsymbols_ignore = [\"test_*\", \"_*\"]\n"), FileName)
	if err != nil || c.Diffgate.Symbols || strings.Join(c.Diffgate.SymbolsIgnore, " ") != "test_* _*" {
		t.Errorf("set: %+v, %v", c.Diffgate, err)
	}
	_, err = Parse([]byte("[diffgate]\n\nsymbols_ignore = [\"ok\", \"[a-\"]\n"), FileName)
	if err == nil || err.Error() != `.git-tdd.toml:3: diffgate.symbols_ignore: "[a-" is not a valid glob` {
		t.Errorf("a broken glob: %v", err)
	}
	_, err = Parse([]byte("[diffgate]\nsymbol = true\n"), FileName)
	if err == nil || !strings.Contains(err.Error(), `did you mean "diffgate.symbols"?`) {
		t.Errorf("a mistyped key: %v", err)
	}
}

func TestSandboxPaths(t *testing.T) {
	c, err := Parse([]byte("[sandbox]\nwrite = [\"~/.cache/pip\", \"/opt/cache\"]\ndeny = [\"~/secrets\"]\n[agent]\nnetwork = true\n[issue]\nnetwork = true\n"), "f")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sandbox.Write) != 2 || c.Sandbox.Deny[0] != "~/secrets" || !c.Agent.Network || !c.Issue.Network {
		t.Fatalf("got %+v", c)
	}
	if d := Default(); d.Agent.Network || d.Issue.Network || d.Sandbox.Write != nil {
		t.Fatalf("the defaults allow more than the worktree: %+v %+v", d.Agent, d.Sandbox)
	}
	for _, tc := range []struct {
		toml string
		ok   bool
	}{
		{"[agent]\nports = [443, 8443]\n", true},
		{"[issue]\nports = [443]\n", true},
		{"[agent]\nports = [0]\n", false},
		{"[agent]\nports = [65536]\n", false},
		{"[issue]\nports = [-1]\n", false},
		{"[issue]\nports = \"443\"\n", false},
	} {
		if _, err := Parse([]byte(tc.toml), "f"); (err == nil) != tc.ok {
			t.Errorf("%q: %v", tc.toml, err)
		}
	}
	for _, bad := range []string{"", "~", "~/", "x/y", "~/a/../../b", "/a//b", "~//a"} {
		if CheckSandboxPath(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The junit runner freezes a JavaScript runner's configuration, package.json
// and the lock files when its command runs a JavaScript tool, whatever way
// it names it; other runners freeze only what [test] freeze says.
func TestFreezeGlobs(t *testing.T) {
	for _, tt := range []struct {
		test Test
		js   bool
	}{
		{Test{Runner: "junit", Command: []string{"npx", "vitest", "run", "--outputFile.junit={junit}"}}, true},
		{Test{Runner: "junit", Command: []string{"/usr/bin/node", "--test", "--test-reporter-destination={junit}"}}, true},
		{Test{Runner: "junit", Command: []string{"sh", "-c", "npm test -- --reporter=junit"}}, true},
		{Test{Runner: "junit", Command: []string{"./node_modules/.bin/jest", "--ci"}}, true},
		{Test{Runner: "junit", Command: []string{"gotestsum", "--junitfile", "{junit}"}}, false},
		{Test{Runner: "generic", Command: []string{"npx", "vitest", "run"}}, false},
	} {
		got := tt.test.FreezeGlobs()
		has := len(got) > 0 && got[len(got)-1] == JSFrozen[len(JSFrozen)-1]
		if has != tt.js {
			t.Errorf("%v: JS files frozen %v, want %v", tt.test.Command, has, tt.js)
		}
	}
	got := Test{Runner: "junit", Command: []string{"npx", "jest"}, Freeze: []string{"jest.setup.ts"}}.FreezeGlobs()
	if got[0] != "jest.setup.ts" || len(got) != 1+len(JSFrozen) {
		t.Errorf("freeze and the JS files: %v", got)
	}
}
