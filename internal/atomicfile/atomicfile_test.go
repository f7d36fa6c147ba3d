package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := Write(p, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", fi.Mode())
	}
	os.Chmod(p, 0o755)
	if err := Write(p, []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two\n" || fi.Mode().Perm() != 0o755 {
		t.Errorf("content %q mode %v: the original mode must be kept", b, fi.Mode())
	}
	assertNoTemp(t, dir)
}

// T150: a failure at any step leaves the old file byte-identical and no temp file.
func TestT150FailureKeepsOldFile(t *testing.T) {
	boom := errors.New("boom")
	steps := map[string]func(){
		"sync":   func() { sync = func(*os.File) error { return boom } },
		"rename": func() { rename = func(string, string) error { return boom } },
	}
	for name, fail := range steps {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			os.WriteFile(p, []byte("precious\n"), 0o644)
			fail()
			defer func() { rename, sync = os.Rename, func(f *os.File) error { return f.Sync() } }()
			if err := Write(p, []byte("new\n"), 0o644); !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(p); string(b) != "precious\n" {
				t.Errorf("old file changed: %q", b)
			}
			assertNoTemp(t, dir)
		})
	}
	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions")
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "f.txt")
		os.WriteFile(p, []byte("precious\n"), 0o644)
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		if err := Write(p, []byte("new\n"), 0o644); err == nil {
			t.Fatal("wrote into a read-only directory")
		}
		if b, _ := os.ReadFile(p); string(b) != "precious\n" {
			t.Errorf("old file changed: %q", b)
		}
	})
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []byte("x"), 0o644); err == nil {
		t.Error("replaced a directory")
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "f.txt" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
