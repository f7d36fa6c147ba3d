package fsafe

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seed 001 T140: traversal in every shape is refused.
func TestT140Resolve(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root + "/sub/deep", root + "/.git/hooks", outside} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(root, "sub", "a.py"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink("sub", filepath.Join(root, "inlink"))
	os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(root, "dangling"))
	os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "gitlink"))

	ok := map[string]string{
		"sub/a.py":                         "sub/a.py",
		"sub/new/file.py":                  "sub/new/file.py",
		"./sub/../sub/a.py":                "sub/a.py",
		"inlink/a.py":                      "sub/a.py",
		filepath.Join(root, "sub", "x.py"): "sub/x.py",
		"sub/deep/../../top.py":            "top.py",
		".github/workflows/ci.yml":         ".github/workflows/ci.yml",
		"gitignore.txt":                    "gitignore.txt",
		".gitignore":                       ".gitignore",
		"-rf":                              "-rf",
		"sp ace/$(x)/`y`;z":                "sp ace/$(x)/`y`;z",
	}
	for p, want := range ok {
		_, rel, err := Resolve(root, root, p)
		if err != nil || rel != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, rel, err, want)
		}
	}
	bad := []string{
		"", "../outside/x", "../../etc/passwd", "sub/../../outside/y", filepath.Join(outside, "abs.txt"), "/etc/passwd",
		"link/escape.txt", "link", "dangling", ".git/hooks/pre-commit", ".git", ".GIT/config", ".Git/config",
		"sub/.git/x", ".git./config", ".git /config", "GIT~1/config", ".git::$INDEX_ALLOCATION/config", "gitlink/config", ".",
		"a\x00b", ".g\u200cit/config", "\ufeff.git/config", ".gi\u206ft/hooks/x",
	}
	for _, p := range bad {
		_, _, err := Resolve(root, root, p)
		var pe *PathError
		if !errors.As(err, &pe) {
			t.Errorf("Resolve(%q) = %v, want a PathError", p, err)
		}
	}
}

// A relative path is relative to where the command runs, inside the root.
func TestResolveFromSubdirectory(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	_, rel, err := Resolve(root, filepath.Join(root, "sub"), "x.py")
	if err != nil || rel != "sub/x.py" {
		t.Errorf("%q %v", rel, err)
	}
	if _, _, err := Resolve(root, filepath.Join(root, "sub"), "../../x.py"); err == nil {
		t.Error("escaped from a subdirectory")
	}
}

func FuzzResolve(f *testing.F) {
	root := f.TempDir()
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	f.Add("sub/../x")
	f.Add("../x")
	f.Fuzz(func(t *testing.T, p string) {
		abs, _, err := Resolve(root, root, p)
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(root)
		if !within(real, abs) || abs == real {
			t.Fatalf("%q resolved to %q, outside %q", p, abs, real)
		}
		if _, bad := gitLookAlike(abs[len(real):]); bad {
			t.Fatalf("%q resolved into .git: %q", p, abs)
		}
	})
}
