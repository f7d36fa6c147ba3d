package gittdd_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/git-tdd/git-tdd/internal/hooks"
)

// .pre-commit-hooks.yaml holds what pre-commit's manifest schema
// (pre_commit/clientlib.py, MANIFEST_HOOK_DICT) accepts: the required fields,
// no unknown one, a known language, stages that every pre-commit from 2.11 on
// knows (3.0 and 3.1 refuse pre-commit and pre-merge-commit, the names 3.2
// gave commit and merge-commit), and entries that run hooks git-diffgate knows.
// The message file reaches the trailer's entry. manager_precommit.txtar runs it
// with the real pre-commit.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var manifest []map[string]any
	if err := yaml.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	known := []string{"id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
		"exclude_types", "additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames",
		"description", "language_version", "log_file", "minimum_pre_commit_version", "require_serial",
		"stages", "verbose"}
	// pre-commit 2.11's STAGES, which every later version accepts; the git
	// hook each runs in
	stages := map[string]string{"commit": "pre-commit", "merge-commit": "pre-merge-commit",
		"prepare-commit-msg": "prepare-commit-msg", "commit-msg": "commit-msg", "post-commit": "post-commit",
		"manual": "", "post-checkout": "post-checkout", "push": "pre-push", "post-merge": "post-merge"}
	want := map[string][]string{
		"git-diffgate":         {"commit", "merge-commit"},
		"git-diffgate-trailer": {"prepare-commit-msg"},
		"git-diffgate-record":  {"post-commit", "post-merge"},
	}
	if len(manifest) != len(want) {
		t.Fatalf("%d hooks, want %d", len(manifest), len(want))
	}
	for _, h := range manifest {
		id, _ := h["id"].(string)
		for _, k := range []string{"id", "name", "entry", "language"} {
			if s, ok := h[k].(string); !ok || s == "" {
				t.Errorf("%s: %s is required", id, k)
			}
		}
		for k := range h {
			if !slices.Contains(known, k) {
				t.Errorf("%s: unknown key %q", id, k)
			}
		}
		if lang := h["language"]; lang != "system" {
			t.Errorf("%s: language %v: the binary is installed, not built by pre-commit", id, lang)
		}
		var got []string
		for _, s := range h["stages"].([]any) {
			if _, ok := stages[s.(string)]; !ok {
				t.Errorf("%s: unknown stage %v", id, s)
			}
			got = append(got, s.(string))
		}
		if !slices.Equal(got, want[id]) {
			t.Errorf("%s: stages %v, want %v", id, got, want[id])
		}
		entry := strings.Fields(h["entry"].(string))
		if len(entry) != 3 || entry[0] != "git-diffgate" || entry[1] != "hook" || !slices.Contains(hooks.All, entry[2]) || entry[2] != stages[got[0]] {
			t.Errorf("%s: entry %q does not run git-diffgate's %s hook", id, h["entry"], got[0])
		}
		// the trailer needs the message file, which pre-commit passes as the
		// file name; the others take none
		if passes := h["pass_filenames"] != false; passes != (id == "git-diffgate-trailer") {
			t.Errorf("%s: pass_filenames %v", id, h["pass_filenames"])
		}
		if v, _ := h["minimum_pre_commit_version"].(string); v != "2.11.0" {
			t.Errorf("%s: minimum_pre_commit_version %q: post-merge came in 2.11.0, and the stages are named as it names them", id, v)
		}
		if h["always_run"] != true {
			t.Errorf("%s: always_run: the gate must run whatever the files", id)
		}
	}
}
