package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	shims "github.com/git-tdd/git-tdd/hooks"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

func actions(cs []Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Hook+"="+strings.SplitN(c.Action, ";", 2)[0])
	}
	return strings.Join(s, " ")
}

func TestInstallTwiceIsANoOp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks") // created when missing
	cs, err := Install(dir, false, false, "/usr/local/bin/git-diffgate")
	if err != nil || len(cs) != len(Default) {
		t.Fatalf("%v %v", actions(cs), err)
	}
	for _, h := range Default {
		fi, err := os.Stat(filepath.Join(dir, h))
		if err != nil || fi.Mode().Perm()&0o111 == 0 || !strings.Contains(readFile(t, filepath.Join(dir, h)), shims.Marker) {
			t.Errorf("%s not an executable shim", h)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, Strict)); err == nil {
		t.Error("reference-transaction installed without --strict")
	}
	cs, err = Install(dir, false, false, "/usr/local/bin/git-diffgate")
	if err != nil || len(cs) != 0 {
		t.Errorf("second install changed %v %v", actions(cs), err)
	}
}

func TestStrictComesAndGoes(t *testing.T) {
	dir := t.TempDir()
	Install(dir, false, false, "/x")
	cs, _ := Install(dir, true, false, "/x")
	// prepare-commit-msg gates and reference-transaction consumes in strict mode
	if actions(cs) != "pre-commit=removed prepare-commit-msg=updated pre-merge-commit=removed post-commit=removed post-merge=removed reference-transaction=installed" {
		t.Errorf("strict: %v", actions(cs))
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "prepare-commit-msg")), "hook "+Gating+` "$@"`) {
		t.Error("the strict prepare-commit-msg does not gate")
	}
	cs, _ = Install(dir, false, false, "/x")
	if actions(cs) != "pre-commit=installed prepare-commit-msg=updated pre-merge-commit=installed post-commit=installed post-merge=installed reference-transaction=removed" {
		t.Errorf("back to default: %v", actions(cs))
	}
	cs, _ = Install(dir, false, false, "/y")
	if len(cs) != len(Default) || !strings.HasPrefix(cs[0].Action, "updated") {
		t.Errorf("a new executable path updates the shims: %v", actions(cs))
	}
}

func TestUserHookIsChainedAndRestored(t *testing.T) {
	dir := t.TempDir()
	user := "#!/bin/sh\necho mine\n"
	write(t, filepath.Join(dir, "pre-commit"), user, 0o755)
	write(t, filepath.Join(dir, "pre-commit.sample"), "sample", 0o644)
	cs, err := Install(dir, false, false, "/x")
	if err != nil || !strings.Contains(actions(cs), "pre-commit=installed") || !strings.Contains(cs[0].Action, "your hook is kept") {
		t.Fatalf("%v %v", cs, err)
	}
	if readFile(t, filepath.Join(dir, "pre-commit.pre-diffgate")) != user {
		t.Fatal("the user's hook was not kept")
	}
	states, _ := Inspect(dir)
	if !states[0].Ours || !states[0].Chained {
		t.Errorf("inspect: %+v", states[0])
	}
	cs, err = Uninstall(dir)
	if err != nil || len(cs) != len(Default) {
		t.Fatalf("%v %v", actions(cs), err)
	}
	if readFile(t, filepath.Join(dir, "pre-commit")) != user {
		t.Error("the user's hook was not restored")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "pre-commit")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if readFile(t, filepath.Join(dir, "pre-commit.sample")) != "sample" {
		t.Error("uninstall touched a file that is not ours")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestUninstallLeavesForeignHooks(t *testing.T) {
	dir := t.TempDir()
	Install(dir, false, false, "/x")
	write(t, filepath.Join(dir, "post-commit"), "#!/bin/sh\necho someone else's\n", 0o755)
	Uninstall(dir)
	if readFile(t, filepath.Join(dir, "post-commit")) == "" {
		t.Error("uninstall removed a hook that is not ours")
	}
}

func TestConflictNeedsForce(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pre-commit"), "#!/bin/sh\necho first\n", 0o755)
	Install(dir, false, false, "/x")
	// the user puts another hook over ours
	write(t, filepath.Join(dir, "pre-commit"), "#!/bin/sh\necho second\n", 0o755)
	before := snapshot(t, dir)
	if _, err := Install(dir, false, false, "/x"); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v", err)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("a refused install changed the directory:\n%s\n%s", before, after)
	}
	if _, err := Install(dir, false, true, "/x"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "pre-commit.pre-diffgate")), "second") {
		t.Error("--force did not chain the current hook")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "pre-commit.pre-diffgate.*"))
	if len(matches) != 1 || !strings.Contains(readFile(t, matches[0]), "first") {
		t.Errorf("the earlier hook was lost: %v", matches)
	}
}

func TestSymlinkedHookIsKept(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "managed-hook")
	write(t, target, "#!/bin/sh\n", 0o755)
	os.Symlink(target, filepath.Join(dir, "pre-commit"))
	if _, err := Install(dir, false, false, "/x"); err != nil {
		t.Fatal(err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "pre-commit.pre-diffgate")); err != nil || l != target {
		t.Errorf("symlink not kept as it was: %q %v", l, err)
	}
	Uninstall(dir)
	if l, _ := os.Readlink(filepath.Join(dir, "pre-commit")); l != target {
		t.Errorf("symlink not restored: %q", l)
	}
}

func TestFailedInstallIsUndone(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pre-commit"), "#!/bin/sh\n", 0o755)
	before := snapshot(t, dir)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if _, err := Install(dir, false, false, "/x"); err == nil {
		t.Fatal("installed into a read-only directory")
	}
	os.Chmod(dir, 0o755)
	if after := snapshot(t, dir); after != before {
		t.Errorf("changed:\n%s\n%s", before, after)
	}
}

func TestRenderQuotesTheExecutable(t *testing.T) {
	s := string(shims.Render("pre-commit", "/opt/it's here/git-diffgate", ""))
	if !strings.Contains(s, `diffgate='/opt/it'\''s here/git-diffgate'`) || strings.Contains(s, "@HOOK@") || strings.Contains(s, "@EXE@") || strings.Contains(s, "@BODY@") {
		t.Errorf("%s", s)
	}
	if !strings.Contains(string(shims.Render("reference-transaction", "/x", "")), "input=$(cat)") {
		t.Error("reference-transaction must keep its stdin")
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		l, _ := os.Readlink(p)
		b.WriteString(e.Name() + ":" + l + ":" + readFile(t, p) + "\n")
	}
	return b.String()
}

// A conflict on a later hook undoes what the install already did to earlier ones.
func TestConflictUndoesEarlierHooks(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pre-commit"), "#!/bin/sh\necho mine\n", 0o755)
	write(t, filepath.Join(dir, "prepare-commit-msg"), "#!/bin/sh\necho now\n", 0o755)
	write(t, filepath.Join(dir, "prepare-commit-msg.pre-diffgate"), "#!/bin/sh\necho before\n", 0o755)
	before := snapshot(t, dir)
	if _, err := Install(dir, true, false, "/x"); err == nil {
		t.Fatal("installed over a conflict")
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("not undone:\n%s\n%s", before, after)
	}
}

// A hook manager that installs over our shim keeps it aside (pre-commit as
// .legacy, which it runs first; lefthook as .old) or overwrites it (husky).
// Uninstall, and install again, then leave what would be there had ours never
// been: the manager's hook, and the user's hook where the manager runs it.
func TestReclaimFromManagers(t *testing.T) {
	const (
		preCommit = "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n# ID: 1\n"
		lefthook  = "#!/bin/sh\ncall_lefthook run \"prepare-commit-msg\" \"$@\"\n"
		husky     = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\""
		mine      = "#!/bin/sh\necho mine\n"
		// mentions the managers, but is no hook one of them generated
		mineLefthook = "#!/bin/sh\n# husky is gone; lefthook first, then mine\nlefthook run prepare-commit-msg \"$@\"\necho mine\n"
	)
	tests := []struct {
		name    string
		before  string // the hook before git diffgate install --strict --force
		manager string // what the manager writes over ours
		aside   string // where it keeps ours
		want    map[string]string
	}{
		{"pre-commit, twice", preCommit, preCommit, ".legacy", map[string]string{"": preCommit}},
		{"pre-commit upgraded in between", preCommit, preCommit + "# 3.2\n", ".legacy", map[string]string{"": preCommit + "# 3.2\n"}},
		{"pre-commit over a hook of the user's", mine, preCommit, ".legacy", map[string]string{"": preCommit, ".legacy": mine}},
		{"lefthook", lefthook, lefthook, ".old", map[string]string{"": lefthook}},
		{"lefthook over a hook of the user's that calls lefthook", mineLefthook, lefthook, ".old", map[string]string{"": lefthook, ".old": mineLefthook}},
		{"husky, which keeps nothing", husky, husky, "", map[string]string{"": husky}},
	}
	for _, tt := range tests {
		for _, again := range []bool{false, true} {
			dir := t.TempDir()
			hook := filepath.Join(dir, "prepare-commit-msg")
			write(t, hook, tt.before, 0o755)
			if _, err := Install(dir, true, true, "/x"); err != nil {
				t.Fatal(err)
			}
			if tt.aside != "" {
				os.Rename(hook, hook+tt.aside)
			}
			write(t, hook, tt.manager, 0o755)
			var err error
			if again {
				// install again: ours back in place, the manager's chained
				_, err = Install(dir, true, true, "/x")
				want := map[string]string{SavedSuffix: tt.manager}
				if v, ok := tt.want[tt.aside]; ok && tt.aside != "" {
					want[tt.aside] = v
				}
				if got := readFile(t, hook+SavedSuffix); err != nil || got != tt.manager {
					t.Errorf("%s, installed again: %s.pre-diffgate %q, %v", tt.name, hook, got, err)
				}
				for _, s := range []string{".legacy", ".old"} {
					if got := readFile(t, hook+s); got != want[s] {
						t.Errorf("%s, installed again: %s %q, want %q", tt.name, s, got, want[s])
					}
				}
				continue
			}
			if _, err = Uninstall(dir); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			got := map[string]string{}
			for _, e := range entries {
				got[strings.TrimPrefix(e.Name(), "prepare-commit-msg")] = readFile(t, filepath.Join(dir, e.Name()))
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: prepare-commit-msg%s = %q, want %q", tt.name, k, got[k], v)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("%s: left %v, want only %v", tt.name, got, tt.want)
			}
		}
	}
}
