package gittdd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/git-tdd/git-tdd/internal/hooks"
)

// The hook manager recipes are one text in three places: docs/install.md, what git
// diffgate install prints, and the scripts that run them with the real tools
// (testdata/script/manager_*.txtar). A recipe changed in one is changed in all.
func TestManagerRecipesAgree(t *testing.T) {
	section := between(t, readText(t, "docs/install.md"), "### With lefthook, pre-commit or husky", "### `--strict`")
	lefthook := archive(t, "testdata/script/manager_lefthook.txtar")
	husky := archive(t, "testdata/script/manager_husky.txtar")
	precommit := readText(t, "testdata/script/manager_precommit.txtar")
	printed := recipes(t)

	// lefthook: docs/install.md's two blocks are the script's files and what install prints
	for _, c := range []struct{ after, file string }{
		{"**lefthook.**", "default.yml"},
		{"**`--strict` in lefthook.**", "strict.yml"},
	} {
		block := codeBlock(t, section, c.after)
		if block != lefthook[c.file] {
			t.Errorf("docs/install.md's lefthook block after %s is not manager_lefthook.txtar's %s:\n%s\n---\n%s", c.after, c.file, block, lefthook[c.file])
		}
	}
	if got := dedent(printed["lefthook"]); got != lefthook["default.yml"] {
		t.Errorf("install prints for lefthook:\n%s\ndocs/install.md says:\n%s", got, lefthook["default.yml"])
	}
	if got := dedent(printed["lefthook strict"]); got != lefthook["strict.yml"] {
		t.Errorf("install --strict prints for lefthook:\n%s\ndocs/install.md says:\n%s", got, lefthook["strict.yml"])
	}

	// pre-commit: the hooks line and the install command
	hooksLine := "hooks: [{id: git-diffgate}, {id: git-diffgate-trailer}, {id: git-diffgate-record}]"
	install := "pre-commit install -t pre-commit -t pre-merge-commit -t prepare-commit-msg -t post-commit -t post-merge"
	for where, text := range map[string]string{
		"docs/install.md": strings.Join(strings.Fields(section), " "), "install's output": printed["pre-commit"],
		"manager_precommit.txtar": precommit,
	} {
		for _, want := range []string{hooksLine, install} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", where, want)
			}
		}
	}

	// husky: each docs/install.md line is in the script's file and in install's output
	lines := regexp.MustCompile("`\\.husky/([a-z-]+)` \\(`([^`]+)`\\)").FindAllStringSubmatch(section, -1)
	if len(lines) < 3 {
		t.Fatalf("docs/install.md's husky lines not found: %v", lines)
	}
	for _, l := range lines {
		if !strings.Contains(husky[l[1]], l[2]+"\n") {
			t.Errorf("manager_husky.txtar's %s lacks the docs/install.md's %q", l[1], l[2])
		}
		if !regexp.MustCompile(`\.husky/` + regexp.QuoteMeta(l[1]) + `: +` + regexp.QuoteMeta(l[2]) + `\n`).MatchString(printed["husky"]) {
			t.Errorf("install's husky recipe lacks .husky/%s: %s", l[1], l[2])
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	j := strings.Index(s[i+1:], to)
	if i < 0 || j < 0 {
		t.Fatalf("no %q … %q", from, to)
	}
	return s[i : i+1+j]
}

// codeBlock is the first fenced block after the text after.
func codeBlock(t *testing.T, s, after string) string {
	t.Helper()
	i := strings.Index(s, after)
	if i < 0 {
		t.Fatalf("no %q", after)
	}
	rest := s[i:]
	open := strings.Index(rest, "```yaml\n")
	if open < 0 {
		t.Fatalf("no code block after %q", after)
	}
	rest = rest[open+len("```yaml\n"):]
	return rest[:strings.Index(rest, "```")]
}

func archive(t *testing.T, path string) map[string]string {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return files
}

// recipes are what install prints for each manager, by name ("lefthook
// strict" for --strict's).
func recipes(t *testing.T) map[string]string {
	top := t.TempDir()
	for _, f := range []string{"lefthook.yml", ".pre-commit-config.yaml"} {
		os.WriteFile(filepath.Join(top, f), nil, 0o644)
	}
	os.Mkdir(filepath.Join(top, ".husky"), 0o755)
	out := map[string]string{}
	for _, m := range hooks.Managers(top, filepath.Join(top, ".git", "hooks"), "") {
		out[m.Name] = strings.Join(m.Recipe, "\n") + "\n"
		out[m.Name+" strict"] = strings.Join(m.Strict, "\n") + "\n"
	}
	return out
}

// dedent is a printed YAML recipe as a file: its indented lines, two spaces less.
func dedent(recipe string) string {
	var b strings.Builder
	for _, l := range strings.Split(recipe, "\n") {
		if s, ok := strings.CutPrefix(l, "  "); ok {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}
