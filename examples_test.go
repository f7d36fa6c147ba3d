package gittdd_test

import (
	"os"
	"strings"
	"testing"

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
