package issueflow

import (
	"slices"
	"strings"
	"testing"
)

func TestParseIssueURL(t *testing.T) {
	for _, tc := range []struct {
		out    string
		number int
		url    string
	}{
		{"https://github.com/acme/widgets/issues/123\n", 123, "https://github.com/acme/widgets/issues/123"},
		{"Creating issue in acme/widgets\n\nhttps://github.com/acme/widgets/issues/7\n", 7, "https://github.com/acme/widgets/issues/7"},
		{"https://ghe.example.com/o/r/issues/42", 42, "https://ghe.example.com/o/r/issues/42"},
		{"https://github.com/acme/widgets/pull/3\n", 0, ""},
		{"issues/12\n", 0, ""},
		{"", 0, ""},
	} {
		n, url, ok := ParseIssueURL([]byte(tc.out))
		if n != tc.number || url != tc.url || ok != (tc.number != 0) {
			t.Errorf("ParseIssueURL(%q) = %d, %q, %v", tc.out, n, url, ok)
		}
	}
}

func TestParseLabelNames(t *testing.T) {
	got, err := ParseLabelNames([]byte(`[{"name":"enhancement"},{"name":"Good First Issue"}]`))
	if err != nil || !slices.Equal(got, []string{"enhancement", "Good First Issue"}) {
		t.Fatalf("got %q, %v", got, err)
	}
	if got, err := ParseLabelNames([]byte("  \n")); err != nil || got != nil {
		t.Fatalf("empty: %q, %v", got, err)
	}
	if _, err := ParseLabelNames([]byte("not json")); err == nil {
		t.Fatal("garbage accepted")
	}
}

// TestMissingLabels is seed 004 test 100's decision: which labels to create.
func TestMissingLabels(t *testing.T) {
	got := MissingLabels([]string{"enhancement", "TDD", "ui"}, []string{"Enhancement", "bug"})
	if !slices.Equal(got, []string{"TDD", "ui"}) {
		t.Fatalf("got %q", got)
	}
}

func TestMatchIssue(t *testing.T) {
	list := []byte(`[{"number":5,"url":"u5","title":"Other","body":"x"},
		{"number":9,"url":"u9","title":"Add widget export","body":"**Labels:** a\r\n\r\nText\r\n"}]`)
	n, url, ok, err := MatchIssue(list, "Add widget export", []byte("**Labels:** a\n\nText\n"))
	if err != nil || !ok || n != 9 || url != "u9" {
		t.Fatalf("got %d %q %v %v", n, url, ok, err)
	}
	if _, _, ok, _ := MatchIssue(list, "Add widget export", []byte("other body")); ok {
		t.Fatal("a different body matched")
	}
	if _, _, ok, err := MatchIssue([]byte(""), "x", nil); ok || err != nil {
		t.Fatalf("empty list: %v %v", ok, err)
	}
}

func TestLabelArg(t *testing.T) {
	for in, want := range map[string]string{"bug": "bug", "a \"b\"": `"a ""b"""`, " x": `" x"`} {
		if got := labelArg(in); got != want {
			t.Errorf("labelArg(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModelEnvHasNoCredentials(t *testing.T) {
	env := ModelEnv([]string{"GH_TOKEN=t", "GITHUB_TOKEN=t", "SSH_AUTH_SOCK=/s", "GH_CONFIG_DIR=/home/u/.config/gh",
		"PYTHONPATH=/evil", "ANTHROPIC_API_KEY=k", "PATH=/usr/bin", "GIT_DIR=/x"}, "/tmp/empty")
	for _, kv := range env {
		for _, bad := range []string{"GH_TOKEN=", "GITHUB_TOKEN=", "SSH_AUTH_SOCK=", "PYTHONPATH=", "GIT_DIR=", "GH_CONFIG_DIR=/home"} {
			if strings.HasPrefix(kv, bad) {
				t.Errorf("%s reaches the model", kv)
			}
		}
	}
	for _, want := range []string{"ANTHROPIC_API_KEY=k", "PATH=/usr/bin", "GH_CONFIG_DIR=/tmp/empty"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from %q", want, env)
		}
	}
}

func TestGHEnv(t *testing.T) {
	env := GHEnv([]string{"GH_TOKEN=t", "GIT_DIR=/x", "GH_FORCE_TTY=1", "CLICOLOR_FORCE=1", "PATH=/usr/bin"})
	for _, want := range []string{"GH_TOKEN=t", "PATH=/usr/bin", "GH_PROMPT_DISABLED=1", "NO_COLOR=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from %q", want, env)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GH_FORCE_TTY=") || strings.HasPrefix(kv, "CLICOLOR_FORCE=") {
			t.Errorf("%s reaches gh", kv)
		}
	}
}
