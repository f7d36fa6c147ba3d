package gittdd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v4"
)

// examples/github-actions.yml runs on pull requests, checks out the pull
// request's own commits with their base, installs both binaries and runs both
// verifies with --json over the pull request's range.
func TestGitHubActionsExample(t *testing.T) {
	data, err := os.ReadFile("examples/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses  string         `yaml:"uses"`
				With  map[string]any `yaml:"with"`
				Run   string         `yaml:"run"`
				Shell string         `yaml:"shell"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.On != "pull_request" {
		t.Errorf("on: %v", wf.On)
	}
	var runs []string
	checkedOut := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") {
				checkedOut = s.With["fetch-depth"] == 0 && strings.Contains(s.With["ref"].(string), "pull_request.head.sha")
			}
			if strings.Contains(s.Run, "| tee") && s.Shell != "bash" {
				t.Errorf("%q pipes without bash's pipefail: the exit code would be tee's", s.Run)
			}
			runs = append(runs, s.Run)
		}
	}
	all := strings.Join(runs, "\n")
	for _, want := range []string{
		"go install github.com/git-tdd/git-tdd/cmd/git-diffgate@latest github.com/git-tdd/git-tdd/cmd/git-tdd@latest",
		`git diffgate verify --json "origin/${{ github.base_ref }}..HEAD"`,
		`git tdd verify --json "origin/${{ github.base_ref }}..HEAD"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no step runs %s", want)
		}
	}
	if !checkedOut {
		t.Error("the checkout must fetch the whole history at the pull request's head")
	}
}

// The walk-through of git tdd run in docs/agents.md, its sh blocks pasted in order as
// they are, from the source tree (a clone): the scripted agent of
// examples/agents runs red → green → merge in text mode, then in edit mode,
// and a human (ttyrun, on a real pseudo-terminal) approves each merge.
func TestRunWalkthrough(t *testing.T) {
	blocks := markedBlocks(t, "docs/agents.md", "run walk-through")
	if len(blocks) < 3 {
		t.Fatalf("the walk-through has %d sh blocks, want the setup, text mode and edit mode", len(blocks))
	}
	dir := t.TempDir()
	script := `# docs/agents.md's run walk-through (examples_test.go writes this)
[!exec:pytest] [!env:GIT_TDD_REQUIRE_PYTEST] skip 'needs pytest (apt-get install python3-pytest)'
[!sandbox] [!env:GIT_TDD_REQUIRE_SANDBOX] skip 'this machine cannot confine agents (Landlock ABI 3, seccomp)'
cd $SRC
# git log on the terminal would page: less draws its prompt among the lines
env GIT_PAGER=cat
exec ttyrun -timeout 300s 'Type APPROVE to merge #1 into main' 'APPROVE\n' 'Type APPROVE to merge #2 into main' 'APPROVE\n' -- sh -e $WORK/walkthrough.sh
stdout 'scripted agent: scaffold of calc.mul, text mode'
stdout 'scripted agent: implement of calc.mul, text mode'
stdout 'N2 red 1/3: 3 tests of this branch fail'
stdout 'block 1 \(add mul after the last function\): applied to calc/__init__.py'
stdout 'run #1: merged · 2 agent calls'
stdout 'scripted agent: scaffold of calc.sub, edit mode'
stdout 'scripted agent: implement of calc.sub, edit mode'
stdout 'run #2: merged · 2 agent calls'
# git log orders commits of the same second as it likes: each line, not their order
stdout '^Merge #2: Subtract$'
stdout '^feat\(#2\): green — 6 passing$'
stdout '^test\(#2\): red — 2 failing$'
stdout '^Merge #1: Multiply$'
stdout '^feat\(#1\): green — 4 passing$'
stdout '^test\(#1\): red — 3 failing$'
stdout '^calc: add$'
! stdout 'git-tdd: error'
-- walkthrough.sh --
` + strings.Join(blocks, "")
	if err := os.WriteFile(filepath.Join(dir, "walkthrough.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, scriptParams(dir))
}

// markedBlocks is the sh blocks of a markdown file between the marks
// "<!-- name: …" and "<!-- end of the name -->".
func markedBlocks(t *testing.T, file, name string) []string {
	t.Helper()
	text := readText(t, file)
	_, rest, ok := strings.Cut(text, "<!-- "+name+":")
	if !ok {
		t.Fatalf("%s has no %s mark", file, name)
	}
	section, _, ok := strings.Cut(rest, "<!-- end of the "+name+" -->")
	if !ok {
		t.Fatalf("%s's %s has no end mark", file, name)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```$").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}
