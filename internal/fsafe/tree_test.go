package fsafe

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestTreeWriteAndRead(t *testing.T) {
	dir := t.TempDir()
	tr, err := OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Write("src/pkg/new.py", []byte("x = 1\n")); err != nil {
		t.Fatal(err)
	}
	data, mode, ok, err := tr.ReadFile("src/pkg/new.py")
	if err != nil || !ok || string(data) != "x = 1\n" || mode&0o600 != 0o600 {
		t.Fatalf("%q %v %v %v", data, mode, ok, err)
	}
	if _, _, ok, err := tr.ReadFile("missing.py"); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
	os.Chmod(filepath.Join(dir, "src/pkg/new.py"), 0o755)
	syscall.Umask(0o077)
	defer syscall.Umask(0o022)
	if err := tr.Write("src/pkg/new.py", []byte("x = 2\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "src/pkg/new.py")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v: the original mode must be kept", fi.Mode())
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "src/pkg"))
	if len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
}

// seed 001 T150: a failure while writing or renaming leaves the old file
// byte-identical and no temp file behind.
func TestT150AtomicWriteOnFailure(t *testing.T) {
	boom := errors.New("disk full")
	cases := map[string]func(){
		"write":  func() { writeData = func(*os.File, []byte) error { return boom } },
		"rename": func() { rename = func(*os.Root, string, string) error { return boom } },
	}
	for name, fail := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "state.py"), []byte("precious\n"), 0o640)
			tr, _ := OpenTree(dir)
			defer tr.Close()
			saveW, saveR := writeData, rename
			defer func() { writeData, rename = saveW, saveR }()
			fail()
			if err := tr.Write("state.py", []byte("half a file")); !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "state.py")); string(b) != "precious\n" {
				t.Errorf("old file changed: %q", b)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}

// A symlink swapped in for a directory after the gate checked the path still
// cannot lead a write out of the tree.
func TestTreeRefusesEscapeAtWriteTime(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	tr, _ := OpenTree(dir)
	defer tr.Close()
	os.Symlink(outside, filepath.Join(dir, "sub"))
	if err := tr.Write("sub/x.txt", []byte("pwned")); err == nil {
		t.Fatal("wrote through a symlink out of the tree")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was written outside: %v", ents)
	}
}

// A symlink swapped in after the gate cannot lead a read or a write into .git
// either (the gate passed "d/pre-commit"; d then points at .git/hooks), nor can
// a file that has become a symlink be read or written through.
func TestTreeRefusesGitAtWriteTime(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("f\n"), 0o644)
	tr, _ := OpenTree(dir)
	defer tr.Close()
	rel, err := tr.Resolve(dir, "d/pre-commit")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "d"))
	os.Symlink(".git/hooks", filepath.Join(dir, "d"))
	if err := tr.Write(rel, []byte("#!/bin/sh\n")); err == nil {
		t.Fatal("wrote into .git through a swapped symlink")
	}
	if ents, _ := os.ReadDir(hooks); len(ents) != 0 {
		t.Errorf("written into .git/hooks: %v", ents)
	}
	if _, _, _, err := tr.ReadFile("d/x"); err == nil {
		t.Error("read in .git through a swapped symlink")
	}
	// the file itself swapped for a symlink to .git/config
	os.Remove(filepath.Join(dir, "f.txt"))
	os.Symlink(".git/config", filepath.Join(dir, "f.txt"))
	if data, _, _, err := tr.ReadFile("f.txt"); err == nil {
		t.Errorf("read .git/config through a swapped symlink: %q", data)
	}
	if err := tr.Write("f.txt", []byte("x")); err == nil {
		t.Error("wrote over a swapped symlink")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
}

func TestReadDirAndRenameDir(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	tr, err := OpenTree(root, filepath.Join(root, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, ok, err := tr.ReadDir("docs/audit/active/x"); ok || err != nil {
		t.Fatalf("missing dir: %v %v", ok, err)
	}
	if err := tr.Write("docs/audit/active/x/001-brief.md", []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	names, ok, err := tr.ReadDir("docs/audit/active/x")
	if !ok || err != nil || len(names) != 1 || names[0] != "001-brief.md" {
		t.Fatalf("ReadDir = %q %v %v", names, ok, err)
	}
	if err := tr.RenameDir("docs/audit/active/x", "docs/audit/done/1-x"); err != nil {
		t.Fatal(err)
	}
	if data, _, ok, _ := tr.ReadFile("docs/audit/done/1-x/001-brief.md"); !ok || string(data) != "b\n" {
		t.Fatalf("moved file: %q %v", data, ok)
	}
	os.MkdirAll(filepath.Join(root, "docs/audit/active/y"), 0o755)
	os.MkdirAll(filepath.Join(root, "docs/audit/done/1-x/z"), 0o755)
	if err := tr.RenameDir("docs/audit/active/y", "docs/audit/done/1-x"); err == nil {
		t.Fatal("rename over an existing directory")
	}
	// a symlinked parent that leads into .git is refused
	os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "docs/evil"))
	if err := tr.RenameDir("docs/audit/active/y", "docs/evil/hooks/y"); err == nil {
		t.Fatal("renamed into .git through a symlink")
	}
	if _, err := os.Stat(filepath.Join(root, "docs/audit/active/y")); err != nil {
		t.Fatalf("source lost: %v", err)
	}
}

func TestNoSymlinks(t *testing.T) {
	root := t.TempDir()
	tr, err := OpenTree(root)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	os.MkdirAll(filepath.Join(root, "docs/skills"), 0o755)
	if err := tr.NoSymlinks("docs/audit/active/x"); err != nil {
		t.Fatalf("missing components: %v", err)
	}
	os.Symlink("skills", filepath.Join(root, "docs/audit"))
	err = tr.NoSymlinks("docs/audit/active/x")
	var pe *PathError
	if !errors.As(err, &pe) || pe.Path != "docs/audit" {
		t.Fatalf("err = %v", err)
	}
}

// A symlink inside the tree on the way is refused too: RenameDir moves the
// directory its path names, never one a symlink leads to.
func TestRenameDirFollowsNoSymlink(t *testing.T) {
	root := t.TempDir()
	tr, err := OpenTree(root)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	os.MkdirAll(filepath.Join(root, "docs/skills/active/guides"), 0o755)
	os.WriteFile(filepath.Join(root, "docs/skills/active/guides/notes.txt"), []byte("mine\n"), 0o644)
	os.Symlink("skills", filepath.Join(root, "docs/audit"))
	if err := tr.RenameDir("docs/audit/active/guides", "docs/done/1-guides"); err == nil {
		t.Fatal("moved a directory through a symlink")
	}
	if _, err := os.Stat(filepath.Join(root, "docs/skills/active/guides/notes.txt")); err != nil {
		t.Fatalf("the user's directory moved: %v", err)
	}
	os.Symlink(filepath.Join(root, "docs/skills"), filepath.Join(root, "docs/done"))
	os.MkdirAll(filepath.Join(root, "docs/real/x"), 0o755)
	if err := tr.RenameDir("docs/real/x", "docs/done/1-x"); err == nil {
		t.Fatal("moved a directory into a symlinked destination")
	}
}
