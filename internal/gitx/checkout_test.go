package gitx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckoutsAreRealCheckouts: what Checkouts.Files says a checkout writes
// is, byte for byte, what git writes in a new worktree of the commit (git
// worktree add) and in the checkout git tdd makes for its proofs
// (CheckoutTree), whatever the working tree's own uncommitted .gitattributes
// says; attributes come from the tree, info/attributes and the configuration.
func TestCheckoutsAreRealCheckouts(t *testing.T) {
	for _, autocrlf := range []string{"false", "true"} {
		t.Run("core.autocrlf="+autocrlf, func(t *testing.T) {
			r := newTestRepo(t)
			r.git("config", "core.autocrlf", autocrlf)
			r.git("config", "filter.up.smudge", "tr a-z A-Z")
			r.write(".gitattributes", "*.sjis working-tree-encoding=SHIFT_JIS\n*.c ident\n*.sh eol=crlf\n*.txt text=auto\n*.cfg filter=up\n*.bin -text\n")
			r.write("sub/.gitattributes", "*.md eol=crlf\n*.c -ident\n")
			r.write("a.sjis", "x = \"\\\" # \"; y = \"~\"\n") // Shift_JIS in the working tree: \ and ~ are ¥ and ‾ in the blob
			r.write("main.c", "/* $Id$ */\nint main(void) { return 0; }\n")
			r.write("sub/other.c", "/* $Id$ */\n")
			r.write("run.sh", "echo one\necho two\n")
			r.write("notes.txt", "notes\nmore\n")
			r.write("x.cfg", "mode = safe\n")
			r.write("sub/readme.md", "# readme\n")
			r.write("data.bin", "a\nb\n")
			r.write("plain.py", "print('hi')\n")
			r.write("crlf.txt", "already\r\nthere\r\n")
			r.write("x.ini", "[a]\nb = c\n")
			r.commitAll("base")
			if err := os.MkdirAll(filepath.Join(r.dir, ".git", "info"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.write(".git/info/attributes", "*.ini eol=crlf\n")
			if blob := r.git("cat-file", "-p", "HEAD:a.sjis"); blob != "x = \"¥\" # \"; y = \"‾\"\n" {
				t.Fatalf("the blob is %q: git add did not encode as expected", blob)
			}
			// what the working tree's uncommitted .gitattributes says does not count
			r.write(".gitattributes", "* -text\n")
			r.write("sub/.gitattributes", "*.md ident\n")

			ctx := context.Background()
			repo, err := Open(ctx, r.dir)
			if err != nil {
				t.Fatal(err)
			}
			listed := ParseLsTreeList(t, r.git("ls-tree", "-r", "-z", "--full-tree", "HEAD"))
			cfg, err := repo.ConvertConfig(ctx)
			if err != nil {
				t.Fatal(err)
			}
			co, err := repo.NewCheckouts(ctx, listed, cfg.AttributesFile)
			if err != nil {
				t.Fatal(err)
			}
			defer co.Close()
			var paths []string
			for _, e := range listed {
				if !IsAttributesFile(e.Path) {
					paths = append(paths, e.Path)
				}
			}
			got, err := co.Files(ctx, paths, 1<<20)
			if err != nil {
				t.Fatal(err)
			}

			added := filepath.Join(t.TempDir(), "added")
			r.git("worktree", "add", "-q", "--detach", added, "HEAD")
			proof := filepath.Join(t.TempDir(), "proof")
			if err := repo.AddDetachedWorktree(ctx, proof, strings.TrimSpace(r.git("rev-parse", "HEAD"))); err != nil {
				t.Fatal(err)
			}
			if err := repo.At(proof).CheckoutTree(ctx, strings.TrimSpace(r.git("rev-parse", "HEAD^{tree}"))); err != nil {
				t.Fatal(err)
			}
			var converted []string
			for _, p := range paths {
				c := got[p]
				if c.Err != "" {
					t.Errorf("%s: %s", p, c.Err)
					continue
				}
				blob := r.git("cat-file", "blob", "HEAD:"+p)
				for _, wt := range []string{added, proof} {
					real, err := os.ReadFile(filepath.Join(wt, p))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(c.Data, real) || c.Size != int64(len(real)) {
						t.Errorf("%s: Files gives %q (%d bytes), the checkout in %s is %q", p, c.Data, c.Size, filepath.Base(wt), real)
					}
				}
				if c.Same != (string(c.Data) == blob) {
					t.Errorf("%s: Same = %v, the blob is %q and the checkout %q", p, c.Same, blob, c.Data)
				}
				if !c.Same {
					converted = append(converted, p)
				}
			}
			want := []string{"a.sjis", "main.c", "run.sh", "sub/readme.md", "x.cfg", "x.ini"}
			if autocrlf == "true" {
				// crlf.txt was committed with core.autocrlf: its blob has LF
				want = []string{"a.sjis", "crlf.txt", "main.c", "notes.txt", "plain.py", "run.sh", "sub/other.c", "sub/readme.md", "x.cfg", "x.ini"}
			}
			if !slices.Equal(converted, want) {
				t.Errorf("converted %q, want %q", converted, want)
			}
			attrs, err := co.Attrs(ctx, paths)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				if n := Conversions(attrs[p], cfg); (len(n) > 0) != !got[p].Same && !(p == "crlf.txt" || p == "sub/other.c") {
					t.Errorf("%s: Conversions = %q, but the checkout is the blob: %v", p, n, got[p].Same)
				}
			}
			outside, err := co.OutsideAttrs(ctx, []string{"x.ini", "run.sh"})
			if err != nil {
				t.Fatal(err)
			}
			if outside["x.ini"]["eol"] != "crlf" || outside["run.sh"]["eol"] != "unspecified" {
				t.Errorf("attributes from outside the tree: %v", outside)
			}
		})
	}
}

// TestCheckoutFailure: a path git cannot check out (a required smudge filter
// that fails) is said, the others are checked out.
func TestCheckoutFailure(t *testing.T) {
	r := newTestRepo(t)
	r.write(".gitattributes", "*.bad filter=bad\n")
	r.write("x.bad", "x\n")
	r.write("ok.txt", "ok\n")
	r.commitAll("base")
	r.git("config", "filter.bad.smudge", "false")
	r.git("config", "filter.bad.required", "true")
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	co, err := repo.NewCheckouts(ctx, ParseLsTreeList(t, r.git("ls-tree", "-r", "-z", "--full-tree", "HEAD")), "")
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	got, err := co.Files(ctx, []string{"x.bad", "ok.txt"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got["x.bad"].Err == "" || !strings.Contains(got["x.bad"].Err, "bad") {
		t.Errorf("x.bad: %+v", got["x.bad"])
	}
	if ok := got["ok.txt"]; ok.Err != "" || string(ok.Data) != "ok\n" || !ok.Same {
		t.Errorf("ok.txt: %+v", ok)
	}
	if entries, _ := os.ReadDir(filepath.Join(r.dir)); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".merge_file") }) {
		t.Errorf("temporary files left in the working tree: %v", entries)
	}
}

// TestOutsideAttributes: the attribute files outside the tree, as git reads
// them here.
func TestOutsideAttributes(t *testing.T) {
	r := newTestRepo(t)
	t.Setenv("GIT_ATTR_NOSYSTEM", "1")
	ctx := context.Background()
	repo, err := Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := repo.OutsideAttributes(""); len(got) != 0 {
		t.Errorf("none yet: %q", got)
	}
	if repo.ConfigMayConvert() {
		t.Errorf("ConfigMayConvert with nothing set")
	}
	info := filepath.Join(r.dir, ".git", "info", "attributes")
	r.write(".git/info/attributes", "")
	if got := repo.OutsideAttributes(""); len(got) != 0 {
		t.Errorf("an empty file: %q", got)
	}
	r.write(".git/info/attributes", "* ident\n")
	home := os.Getenv("HOME")
	xdg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "attributes")
	if err := os.MkdirAll(filepath.Dir(xdg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xdg, []byte("*.c ident\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := repo.OutsideAttributes(""); !slices.Equal(got, []string{info, xdg}) {
		t.Errorf("got %q, want %q", got, []string{info, xdg})
	}
	own := filepath.Join(home, "attrs")
	if err := os.WriteFile(own, []byte("*.c ident\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, configured := range []string{"~/attrs", own} {
		if got := repo.OutsideAttributes(configured); !slices.Equal(got, []string{info, own}) {
			t.Errorf("core.attributesFile %s: got %q", configured, got)
		}
	}
	r.git("config", "core.attributesFile", "~/attrs")
	if !repo.ConfigMayConvert() {
		t.Errorf("ConfigMayConvert misses core.attributesFile in .git/config")
	}
	r.git("config", "--unset", "core.attributesFile")
	if !repo.WithEnv("GIT_CONFIG_PARAMETERS='core.autoCRLF'='true'").ConfigMayConvert() {
		t.Errorf("ConfigMayConvert misses git -c core.autocrlf")
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if repo.ConfigMayConvert() {
		t.Errorf("ConfigMayConvert follows an include to a file that is not there")
	}
	if err := os.WriteFile(filepath.Join(home, "other"), []byte("[core]\n\tautocrlf = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !repo.ConfigMayConvert() {
		t.Errorf("ConfigMayConvert misses core.autocrlf in an included file")
	}
}

// ParseLsTreeList is ls-tree -r -z output as entries, in git's order.
func ParseLsTreeList(t *testing.T, out string) []TreeEntry {
	t.Helper()
	m, err := ParseLsTree([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	var list []TreeEntry
	for _, e := range m {
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b TreeEntry) int { return strings.Compare(a.Path, b.Path) })
	return list
}
