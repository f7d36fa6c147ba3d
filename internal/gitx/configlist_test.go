package gitx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseConfigList(t *testing.T) {
	out := "local\x00file:.git/config\x00commit.gpgsign\ntrue\x00" +
		"global\x00file:/h/.gitconfig\x00commit.gpgsign\x00" +
		"command\x00command line:\x00alias.ci\ncommit -m \"a\nb\"\x00"
	l, err := parseConfigList([]byte(out))
	if err != nil || len(l) != 3 {
		t.Fatalf("parseConfigList = %+v, %v", l, err)
	}
	if l[1].HasValue || !l.Bool("commit.gpgsign") {
		t.Errorf("a key without a value is true: %+v", l[1])
	}
	if e, _ := l.Get("alias.ci"); e.Value != "commit -m \"a\nb\"" || e.Origin != "command line:" || e.Scope != "command" {
		t.Errorf("alias.ci = %+v", e)
	}
	for _, bad := range []string{"local\x00file:x\x00key", "local\x00file:x\x00", "\x00\x00k\nv\x00", "local\x00o\x00\nv\x00"} {
		if _, err := parseConfigList([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if l, err := parseConfigList(nil); l != nil || err != nil {
		t.Errorf("nothing: %v, %v", l, err)
	}
	for _, tt := range []struct {
		out  string
		want bool
	}{
		{"", false},
		{"local\x00o\x00commit.gpgsign\nfalse\x00", false},
		{"local\x00o\x00commit.gpgsign\ntrue\x00local\x00o\x00commit.gpgsign\noff\x00", false},
		{"local\x00o\x00commit.gpgsign\noff\x00local\x00o\x00commit.gpgsign\nYes\x00", true},
		{"local\x00o\x00commit.gpgsign\n1\x00", true},
		{"local\x00o\x00commit.gpgsign\n\x00", false},
	} {
		l, _ := parseConfigList([]byte(tt.out))
		if got := l.Bool("commit.gpgsign"); got != tt.want {
			t.Errorf("Bool(%q) = %v", tt.out, got)
		}
	}
}

func TestConfigListFromGit(t *testing.T) {
	r := newTestRepo(t)
	home := os.Getenv("HOME")
	inc := filepath.Join(home, "inc.conf")
	if err := os.WriteFile(inc, []byte("[commit]\n\tgpgsign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git("config", "include.path", "~/inc.conf")
	r.git("config", "alias.ci", "commit -S")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='X'")
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := repo.ConfigList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Bool("commit.gpgsign") {
		t.Errorf("commit.gpgsign from an included file not read: %+v", l)
	}
	if e, ok := l.Get("alias.ci"); !ok || e.Value != "commit -S" {
		t.Errorf("alias.ci = %+v", e)
	}
	files := repo.ConfigFiles(l)
	for _, want := range []string{inc, filepath.Join(home, ".gitconfig"), filepath.Join(repo.CommonDir, "config")} {
		if !slices.Contains(files, want) {
			t.Errorf("ConfigFiles = %q, without %s", files, want)
		}
	}
}

func TestConfigMaySign(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	open := func() *Repo {
		repo, err := Open(ctx, r.dir)
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}
	if open().ConfigMaySign() {
		t.Error("a configuration that says nothing of signing may sign")
	}
	r.git("config", "commit.gpgSign", "false")
	if !open().ConfigMaySign() {
		t.Error("commit.gpgSign in .git/config not seen")
	}
	r.git("config", "--unset", "commit.gpgSign")
	r.git("config", "include.path", "other")
	if open().ConfigMaySign() {
		t.Error("an include of a file that is not there may sign")
	}
	r.write(".git/other", "[user]\n\tname = x\n[include]\n\tpath = \"../deeper\"\n")
	if open().ConfigMaySign() {
		t.Error("an include of a file that says nothing of signing may sign")
	}
	r.write("deeper", "[commit]\n\tgpgSign = true\n")
	if !open().ConfigMaySign() {
		t.Error("commit.gpgSign two includes down not seen")
	}
	r.write(".git/other", "[include]\n\tpath = %(prefix)/x\n")
	if !open().ConfigMaySign() {
		t.Error("an include git resolves in its own way not taken as a maybe")
	}
	r.git("config", "--unset", "include.path")
	r.git("config", "includeIf.gitdir:/nowhere/.path", "../deeper")
	if !open().ConfigMaySign() {
		t.Error("an includeIf whose condition does not hold not taken as a maybe")
	}
	r.git("config", "--unset", "includeIf.gitdir:/nowhere/.path")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'include.path'='/x'")
	if !open().ConfigMaySign() {
		t.Error("git -c include.path not taken as a maybe")
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'commit.gpgsign'='true'")
	if !open().ConfigMaySign() {
		t.Error("git -c commit.gpgsign not seen")
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "Commit.GpgSign")
	t.Setenv("GIT_CONFIG_VALUE_0", "true")
	if !open().ConfigMaySign() {
		t.Error("GIT_CONFIG_KEY_0 not seen")
	}
	repo := open()
	t.Setenv("GIT_CONFIG_COUNT", "x")
	if !repo.ConfigMaySign() {
		t.Error("a malformed GIT_CONFIG_COUNT is taken for nothing")
	}
}

// A gate reads neither commit.gpgSign nor user.signingKey with git when no
// file mentions them: the user's own configuration sets the key, too.
func TestConfigMaySetSigning(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.ConfigMaySetSigning() {
		t.Error("a configuration that says nothing of signing may set it")
	}
	r.git("config", "--global", "user.signingKey", "~/.ssh/id_ed25519.pub")
	if !repo.ConfigMaySetSigning() {
		t.Error("user.signingKey in the user's configuration not seen")
	}
	if s, err := repo.Signing(ctx); err != nil || s.Key != "~/.ssh/id_ed25519.pub" {
		t.Errorf("Signing = %+v, %v", s, err)
	}
}

func TestUserValues(t *testing.T) {
	out := "system\x00file:/etc/gitconfig\x00tdd.sandbox.write\n/opt/a\x00" +
		"global\x00file:/h/.gitconfig\x00tdd.sandbox.write\n~/.cache/b\x00" +
		"local\x00file:.git/config\x00tdd.sandbox.write\n/l\x00" +
		"worktree\x00file:.git/config.worktree\x00tdd.sandbox.write\n/w\x00" +
		"local\x00file:wt/inc.conf\x00tdd.sandbox.write\n/included\x00" +
		"local\x00file:/elsewhere/inc.conf\x00tdd.sandbox.write\n/abs\x00" +
		"command\x00command line:\x00tdd.sandbox.write\n/c\x00"
	l, err := parseConfigList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.userValues("/r", "/r/.git"); strings.Join(got, ",") != "/opt/a,~/.cache/b,/l,/w" {
		t.Errorf("userValues = %q: the user's files and the repository's own count, not an included file nor the command line", got)
	}
}

func TestAfterSection(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"path = x", "path = x", true},
		{"[include] path = x", "path = x", true},
		{`[includeIf "gitdir:~/a]b/"]path=y`, "path=y", true},
		{`[includeIf "gitdir:~/a\"]b/"] path = z`, "path = z", true},
		{"[include]", "", true},
		{"[include path = x", "", false},
	} {
		got, ok := afterSection([]byte(tt.in))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("afterSection(%q) = %q, %v", tt.in, got, ok)
		}
	}
}

// core.sharedRepository in a file that .git/config includes with the
// include on its section's line ("[include] path = more"), which git reads
// as any other include: the in-process writer must leave it to git.
func TestConfigMayMentionIncludeOnTheSectionLine(t *testing.T) {
	r := newTestRepo(t)
	r.write(".git/more", "[core]\n\tsharedRepository = group\n")
	f, err := os.OpenFile(filepath.Join(r.dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[include] path = more\n")
	f.Close()
	if v := strings.TrimSpace(r.git("config", "core.sharedRepository")); v != "group" {
		t.Fatalf("git reads core.sharedRepository = %q", v)
	}
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !repo.configMayMention(objectSettings...) {
		t.Error("configMayMention missed core.sharedRepository in a file included by \"[include] path = more\"")
	}
}

// A relative GIT_CONFIG_GLOBAL is where git, run in the top level, finds it,
// and an include of "~/" without a home is one this cannot read: either may
// say anything.
func TestConfigMayMentionWhereGitLooks(t *testing.T) {
	r := newTestRepo(t)
	r.write("global.cfg", "[core]\n\tfsync = all\n")
	repo, err := Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !repo.WithEnv("GIT_CONFIG_GLOBAL=global.cfg").configMayMention(objectSettings...) {
		t.Error("a relative GIT_CONFIG_GLOBAL was read from elsewhere")
	}
	r.git("config", "include.path", "~/x.cfg")
	if !repo.WithEnv("HOME=").configMayMention(objectSettings...) {
		t.Error("an include of ~/ without a home was taken for nothing")
	}
}
