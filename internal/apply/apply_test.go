package apply

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
)

// fixture is a throw-away repository with an isolated git configuration and an
// Env that never finds a terminal (GIT_TDD_AUTO=1 stands in for "no human").
type fixture struct {
	t   *testing.T
	dir string
	env *Env
	out bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
	} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ctx := context.Background()
	repo, err := gitx.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo.Top)
	f := &fixture{t: t, dir: repo.Top}
	f.env = &Env{Ctx: ctx, Repo: repo, Store: state.New(repo.CommonDir), Cfg: config.Default(),
		Out: &f.out, Err: &f.out, Color: "never", Command: "tdd write", Cwd: repo.Top,
		Getenv: func(k string) string {
			if k == "GIT_TDD_AUTO" {
				return "1"
			}
			return ""
		}}
	return f
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) audit() []state.AuditEntry {
	f.t.Helper()
	data, err := os.ReadFile(f.env.Store.AuditPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var out []state.AuditEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e state.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			f.t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func code(err error) int { return exitcode.Of(err) }

// T010: a new file is written without a prompt.
func TestT010NewFileNoApproval(t *testing.T) {
	f := newFixture(t)
	if err := f.env.Write(WriteOptions{Path: "pkg/new.py", Content: []byte(lines(500))}); err != nil {
		t.Fatal(err)
	}
	if f.read("pkg/new.py") != lines(500) {
		t.Fatal("content differs")
	}
	a := f.audit()
	if len(a) != 1 || a[0].Outcome != "written" || a[0].Before != nil || a[0].After.Lines != 500 || a[0].Strategy != "replace" {
		t.Fatalf("audit: %+v", a)
	}
}

// T020, T110, T120: up to 100 lines is written at once; 101 needs approval.
func TestT020T110T120ApprovalBoundary(t *testing.T) {
	for _, tt := range []struct {
		lines int
		needs bool
	}{{1, false}, {99, false}, {100, false}, {101, true}, {5000, true}} {
		t.Run(fmt.Sprint(tt.lines), func(t *testing.T) {
			f := newFixture(t)
			f.write("m.py", lines(tt.lines))
			err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("x = 1\n")})
			if !tt.needs {
				if err != nil || f.read("m.py") != "x = 1\n" {
					t.Fatalf("err %v, content %q", err, f.read("m.py"))
				}
				return
			}
			if code(err) != exitcode.HumanRequired || f.read("m.py") != lines(tt.lines) {
				t.Fatalf("err %v (exit %d); the file must be untouched", err, code(err))
			}
		})
	}
}

// T030, T040: in auto mode a large file is refused with the seed's message, the
// file untouched, the refusal audited, and large files pointed at patch.
func TestT030T040AutoModeBlocksLargeFile(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", lines(600))
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("x\n"), Auto: true})
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.HumanRequired {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(strings.Join(ee.Detail, "\n"), "Cannot replace non-trivial files in auto mode") {
		t.Errorf("detail %q", ee.Detail)
	}
	// the hint names what a human runs, and never advertises --force to the
	// unattended caller that reads it
	if !strings.Contains(ee.Hint, "git tdd patch") || strings.Contains(ee.Hint, "force") {
		t.Errorf("hint %q", ee.Hint)
	}
	if f.read("m.py") != lines(600) {
		t.Fatal("changed")
	}
	// the content is kept for the human the hint names
	saved := regexp.MustCompile(`--from (\S+)`).FindStringSubmatch(ee.Hint)
	if b, err := os.ReadFile(saved[len(saved)-1]); err != nil || string(b) != "x\n" {
		t.Errorf("saved content %q %v (hint %q)", b, err, ee.Hint)
	}
	a := f.audit()
	if len(a) != 1 || a[0].Outcome != "refused" || a[0].Before.Lines != 600 || a[0].ApprovedBy != "" {
		t.Fatalf("audit: %+v", a)
	}
}

// T050: --auto --force replaces, audited as approved by force; with
// [write] allow_force = false it is refused.
func TestT050ForceAllows(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", lines(200))
	if err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("y\n"), Auto: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if f.read("m.py") != "y\n" {
		t.Fatal("not replaced")
	}
	if a := f.audit(); a[len(a)-1].ApprovedBy != "force" || a[len(a)-1].Strategy != "replace" {
		t.Fatalf("audit: %+v", a)
	}

	f.write("m.py", lines(200))
	f.env.Cfg.Write.AllowForce = false
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("y\n"), Auto: true, Force: true})
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.HumanRequired || !strings.Contains(strings.Join(ee.Detail, "\n"), "allow_force = false") {
		t.Fatalf("%v %q", err, ee.Detail)
	}
	if f.read("m.py") != lines(200) {
		t.Fatal("changed")
	}
}

// --force with a strategy merges instead of replacing.
func TestForceWithStrategy(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", lines(150))
	if err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("tail\n"), Strategy: "append", Force: true}); err != nil {
		t.Fatal(err)
	}
	if f.read("m.py") != lines(150)+"tail\n" {
		t.Fatal("not appended")
	}
	f.write("m.py", lines(150))
	if err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("top\n"), Strategy: "insert", Line: 1, Force: true}); err != nil {
		t.Fatal(err)
	}
	if f.read("m.py") != "top\n"+lines(150) {
		t.Fatal("not inserted")
	}
}

// A strategy that cannot combine the files (extend of a Python file with no
// class in common) is exit 1 and leaves the file.
func TestExtendFailureLeavesFile(t *testing.T) {
	f := newFixture(t)
	old := "class A:\n    def a(self):\n        pass\n" + strings.Repeat("# pad\n", 120)
	f.write("m.py", old)
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("def (:\n"), Strategy: "extend", Force: true})
	if code(err) != exitcode.Refused || f.read("m.py") != old {
		t.Fatalf("%v (exit %d)", err, code(err))
	}
}

// The mode of an existing file is kept by every write.
func TestWriteKeepsMode(t *testing.T) {
	f := newFixture(t)
	f.write("run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(f.dir, "run.sh"), 0o751)
	if err := f.env.Write(WriteOptions{Path: "run.sh", Content: []byte("#!/bin/sh\necho hi\n")}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(f.dir, "run.sh"))
	if fi.Mode().Perm() != 0o751 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// T140: paths outside the working tree or into .git are exit 2, nothing is
// read or written, and the refusal is audited.
func TestT140PathRefused(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(f.dir, "out"))
	for _, p := range []string{"../x.py", filepath.Join(outside, "x.py"), ".git/config", ".GIT/hooks/pre-commit", "git~1/x", ".git./x", "out/x.py"} {
		err := f.env.Write(WriteOptions{Path: p, Content: []byte("evil\n")})
		if code(err) != exitcode.Usage {
			t.Errorf("%s: %v (exit %d)", p, err, code(err))
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside: %v", entries)
	}
	a := f.audit()
	if len(a) != 7 || a[0].Outcome != "refused" {
		t.Fatalf("audit: %+v", a)
	}
}

// failingTree makes the write of one file fail, to prove what is left behind.
type failingTree struct {
	files
	fail string
}

func (f failingTree) Write(rel string, data []byte) error {
	if rel == f.fail {
		return errors.New("disk full")
	}
	return f.files.Write(rel, data)
}

func failWritesOf(t *testing.T, rel string) {
	saved := openTree
	openTree = func(dir string, gitDirs ...string) (files, error) {
		tr, err := saved(dir, gitDirs...)
		return failingTree{tr, rel}, err
	}
	t.Cleanup(func() { openTree = saved })
}

// T150: a write that fails leaves the old file as it was.
func TestT150FailedWriteLeavesFile(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", "old\n")
	failWritesOf(t, "m.py")
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("new\n")})
	if err == nil || !strings.Contains(err.Error(), "the old file is unchanged") || f.read("m.py") != "old\n" {
		t.Fatalf("%v", err)
	}
	if a := f.audit(); a[0].Outcome != "failed" {
		t.Fatalf("audit %+v", a)
	}
}

const patchTwoFiles = "a.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n\n" +
	"b.py\n<<<<<<< SEARCH\nb = 1\n=======\nb = 2\n>>>>>>> REPLACE\n\n" +
	"c.py\n<<<<<<< SEARCH\n=======\nc = 1\n>>>>>>> REPLACE\n"

// All or nothing on disk: when the last file's write fails, the files written
// before it are put back and a created one removed.
func TestPatchRollsBackOnWriteFailure(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	f.write("b.py", "b = 1\n")
	failWritesOf(t, "c.py")
	err := f.env.Patch(PatchOptions{Input: []byte(patchTwoFiles)})
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("%v", err)
	}
	if f.read("a.py") != "a = 1\n" || f.read("b.py") != "b = 1\n" {
		t.Fatal("not restored")
	}
	failWritesOf(t, "b.py")
	f.env.Patch(PatchOptions{Input: []byte(patchTwoFiles)})
	if f.read("a.py") != "a = 1\n" {
		t.Fatal("a.py not restored")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "c.py")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("c.py was left")
	}
}

// T070, T080 end to end: blocks across files apply in order, report where and
// how, and audit each file.
func TestPatchAcrossFiles(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	f.write("b.py", "b = 1\n")
	if err := f.env.Patch(PatchOptions{Input: []byte(patchTwoFiles)}); err != nil {
		t.Fatal(err)
	}
	if f.read("a.py") != "a = 2\n" || f.read("b.py") != "b = 2\n" || f.read("c.py") != "c = 1\n" {
		t.Fatal("not applied")
	}
	out := f.out.String()
	for _, want := range []string{"block 1: applied to a.py at line 1 (exact match)", "block 3: creates c.py", "wrote a.py (1 → 1 lines)", "wrote c.py (new, 1 line)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if a := f.audit(); len(a) != 3 || a[2].Path != "c.py" || a[2].Before != nil {
		t.Fatalf("audit %+v", a)
	}
}

// One failing block writes nothing anywhere, and --json names the code.
func TestPatchAllOrNothingJSON(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	f.write("b.py", "b = 9\n")
	err := f.env.Patch(PatchOptions{Input: []byte(patchTwoFiles), JSON: true})
	if code(err) != exitcode.Refused {
		t.Fatalf("%v", err)
	}
	var rep PatchReport
	if err := json.Unmarshal(f.out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.ErrorCode != NotApplied || len(rep.Blocks) != 3 || rep.Blocks[0].Code != "applied" || rep.Blocks[1].Code != "not-found" {
		t.Fatalf("%+v", rep)
	}
	if f.read("a.py") != "a = 1\n" {
		t.Fatal("a.py written")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "c.py")); err == nil {
		t.Fatal("c.py created")
	}
}

// T110: a cut-off answer is "truncated", not "malformed".
func TestT110PatchTruncated(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	err := f.env.Patch(PatchOptions{Path: "a.py", Input: []byte("<<<<<<< SEARCH\na = 1\n=======\na ="), JSON: true})
	var rep PatchReport
	json.Unmarshal(f.out.Bytes(), &rep)
	if code(err) != exitcode.Refused || rep.ErrorCode != Truncated {
		t.Fatalf("%v %+v", err, rep)
	}
	f.out.Reset()
	err = f.env.Patch(PatchOptions{Path: "a.py", Input: []byte("hello\n")})
	var ee *exitcode.Error
	if !errors.As(err, &ee) || !strings.Contains(ee.Hint, "git tdd prompt") {
		t.Fatalf("%v", err)
	}
}

// A block with no file and no <path> is a usage error.
func TestPatchNeedsAFile(t *testing.T) {
	f := newFixture(t)
	err := f.env.Patch(PatchOptions{Input: []byte("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")})
	if code(err) != exitcode.Usage {
		t.Fatalf("%v", err)
	}
}

// A patch that only repeats what is there writes nothing and says so.
func TestPatchAlreadyApplied(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 2\n")
	fi0, _ := os.Stat(filepath.Join(f.dir, "a.py"))
	if err := f.env.Patch(PatchOptions{Path: "a.py", Input: []byte("<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n")}); err != nil {
		t.Fatal(err)
	}
	fi1, _ := os.Stat(filepath.Join(f.dir, "a.py"))
	if !os.SameFile(fi0, fi1) || !strings.Contains(f.out.String(), "unchanged: every block was applied already") {
		t.Fatalf("rewritten, or %s", f.out.String())
	}
}

// CRLF, a BOM and a missing final newline survive a patch on disk.
func TestPatchKeepsLineEndingsOnDisk(t *testing.T) {
	f := newFixture(t)
	f.write("w.py", "\ufeffa = 1\r\nb = 2\r\nc = 3")
	in := "<<<<<<< SEARCH\nb = 2\n=======\nb = 20\nb2 = 21\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc = 3\n=======\nc = 30\n>>>>>>> REPLACE\n"
	if err := f.env.Patch(PatchOptions{Path: "w.py", Input: []byte(in)}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("w.py"); got != "\ufeffa = 1\r\nb = 20\r\nb2 = 21\r\nc = 30" {
		t.Fatalf("%q", got)
	}
}

// Names that break naive tools are written and patched exactly.
func TestHostileNames(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"test; rm -rf.py", "$(touch pwned).py", "-rf.py", "--help", "sp ace's \"q\".py", "new\nline.py", "caf\xe9.py", "esc\x1b[2J.py"} {
		if err := f.env.Write(WriteOptions{Path: name, Content: []byte("a = 1\n")}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		in := "### FILE: " + name + "\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n"
		if strings.Contains(name, "\n") {
			in = strings.TrimPrefix(in, "### FILE: "+name+"\n")
		}
		if err := f.env.Patch(PatchOptions{Path: name, Input: []byte(in)}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if f.read(name) != "a = 2\n" {
			t.Fatalf("%q: %q", name, f.read(name))
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pwned")); err == nil {
		t.Fatal("a name ran a command")
	}
	if strings.Contains(f.out.String(), "\x1b") {
		t.Fatalf("an escape reached the output: %q", f.out.String())
	}
}

// The whole-file answer git tdd prompt asks for is written without its header
// and fence; an answer for another file is refused.
func TestWriteTakesPromptsAnswer(t *testing.T) {
	f := newFixture(t)
	if err := f.env.Write(WriteOptions{Path: "n.py", Content: []byte("### FILE: n.py\n```python\nx = 1\n```\n")}); err != nil {
		t.Fatal(err)
	}
	if f.read("n.py") != "x = 1\n" {
		t.Fatalf("%q", f.read("n.py"))
	}
	err := f.env.Write(WriteOptions{Path: "n.py", Content: []byte("### FILE: other.py\n```\ny = 2\n```\n")})
	if code(err) != exitcode.Usage || f.read("n.py") != "x = 1\n" {
		t.Fatalf("%v", err)
	}
}

// changingTree changes the file on disk after it was first read, as an editor
// would while a human is at the prompt.
type changingTree struct {
	files
	dir   string
	reads *int
}

func (c changingTree) ReadFile(rel string) ([]byte, fs.FileMode, bool, error) {
	*c.reads++
	if *c.reads == 2 {
		os.WriteFile(filepath.Join(c.dir, rel), []byte("edited meanwhile\n"), 0o644)
	}
	return c.files.ReadFile(rel)
}

// A file that changed after it was read is not written over.
func TestWriteRefusesAFileThatChanged(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", "old\n")
	saved, reads := openTree, 0
	openTree = func(dir string, gitDirs ...string) (files, error) {
		tr, err := saved(dir, gitDirs...)
		return changingTree{tr, dir, &reads}, err
	}
	t.Cleanup(func() { openTree = saved })
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("new\n")})
	if code(err) != exitcode.Refused || f.read("m.py") != "edited meanwhile\n" {
		t.Fatalf("%v: %q", err, f.read("m.py"))
	}
}

// --strategy insert without --line is a usage error, not a refusal.
func TestInsertNeedsALine(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", "a\n")
	err := f.env.Write(WriteOptions{Path: "m.py", Content: []byte("b\n"), Strategy: "insert"})
	if code(err) != exitcode.Usage || f.read("m.py") != "a\n" {
		t.Fatalf("%v", err)
	}
}

// A legal name of 250 bytes can be written: the temp file's name is short.
func TestLongName(t *testing.T) {
	f := newFixture(t)
	name := strings.Repeat("n", 247) + ".py"
	if err := f.env.Write(WriteOptions{Path: name, Content: []byte("x\n")}); err != nil {
		t.Fatal(err)
	}
	if f.read(name) != "x\n" {
		t.Fatal("not written")
	}
}

// A patch for a file that does not exist is refused and audited.
func TestPatchMissingFileAudited(t *testing.T) {
	f := newFixture(t)
	err := f.env.Patch(PatchOptions{Path: "none.py", Input: []byte("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")})
	if code(err) != exitcode.Refused {
		t.Fatalf("%v", err)
	}
	if a := f.audit(); len(a) != 1 || a[0].Path != "none.py" || a[0].Outcome != "refused" {
		t.Fatalf("%+v", a)
	}
}

const codexThree = "*** Begin Patch\n*** Add File: pkg/new.py\n+def new():\n+    return 1\n" +
	"*** Update File: a.py\n@@ def a():\n-    return 1\n+    return 2\n" +
	"*** Delete File: old.txt\n*** End Patch\n"

// A Codex patch that adds, updates and deletes files: the delete needs a
// human like a replacement, so unattended it writes nothing anywhere; with
// --force it all happens, audited file by file.
func TestPatchCodexAddsUpdatesDeletes(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "def a():\n    return 1\n")
	f.write("old.txt", "bye\n")
	err := f.env.Patch(PatchOptions{Input: []byte(codexThree), Auto: true})
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.HumanRequired || !strings.Contains(strings.Join(ee.Detail, "\n"), "deletes old.txt") {
		t.Fatalf("%v %q", err, ee.Detail)
	}
	if f.read("a.py") != "def a():\n    return 1\n" || f.read("old.txt") != "bye\n" {
		t.Fatal("written without a human")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pkg/new.py")); err == nil {
		t.Fatal("created without a human")
	}
	f.out.Reset()
	if err := f.env.Patch(PatchOptions{Input: []byte(codexThree), Auto: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if f.read("a.py") != "def a():\n    return 2\n" || f.read("pkg/new.py") != "def new():\n    return 1\n" {
		t.Fatal("not applied")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "old.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("old.txt is still there")
	}
	out := f.out.String()
	for _, want := range []string{"block 1: creates pkg/new.py", "block 2 (@@ def a():): applied to a.py at line 2 (exact match)", "block 3: deletes old.txt", "deleted old.txt (1 line)", "wrote pkg/new.py (new, 2 lines)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	a := f.audit()
	last := a[len(a)-1]
	if last.Path != "old.txt" || last.Outcome != "deleted" || last.ApprovedBy != "force" || last.Before.Lines != 1 || last.After != nil {
		t.Fatalf("audit %+v", a)
	}
	// again: every block is already applied, nothing is written or asked
	f.out.Reset()
	if err := f.env.Patch(PatchOptions{Input: []byte(codexThree), Auto: true}); err != nil || !strings.Contains(f.out.String(), "already applied") {
		t.Fatalf("%v\n%s", err, f.out.String())
	}
}

// --json names each block's format and the input's formats; a diff's
// hunks apply by content whatever their @@ numbers say.
func TestPatchUnifiedDiffJSON(t *testing.T) {
	f := newFixture(t)
	f.write("m.py", "import os\n\n\ndef a():\n    return 1\n")
	in := "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -40,2 +40,2 @@\n def a():\n-    return 1\n+    return 2\n"
	if err := f.env.Patch(PatchOptions{Input: []byte(in), JSON: true}); err != nil {
		t.Fatal(err)
	}
	var rep PatchReport
	if err := json.Unmarshal(f.out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || fmt.Sprint(rep.Formats) != "[unified-diff]" || rep.Blocks[0].Format != "unified-diff" || rep.Blocks[0].Start != 4 || rep.Blocks[0].Tier != "exact" {
		t.Fatalf("%+v", rep)
	}
	if f.read("m.py") != "import os\n\n\ndef a():\n    return 2\n" {
		t.Fatal("not applied")
	}
}

// --format forces one format: another format's blocks are then not read.
func TestPatchFormatForced(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	err := f.env.Patch(PatchOptions{Path: "a.py", Format: "unified-diff", Input: []byte("<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n"), JSON: true})
	var rep PatchReport
	json.Unmarshal(f.out.Bytes(), &rep)
	if code(err) != exitcode.Refused || rep.ErrorCode != Malformed || !strings.Contains(rep.Error, "unified diff") {
		t.Fatalf("%v %+v", err, rep)
	}
	f.out.Reset()
	if err := f.env.Patch(PatchOptions{Path: "a.py", Format: "aider", Input: []byte("<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n")}); err != nil || f.read("a.py") != "a = 2\n" {
		t.Fatalf("%v %q", err, f.read("a.py"))
	}
}

// An added file over an existing one follows write's rule: up to
// approval_lines lines it is replaced at once, a longer one needs a human.
func TestPatchAddOverExisting(t *testing.T) {
	f := newFixture(t)
	f.write("small.txt", lines(100))
	f.write("big.txt", lines(101))
	add := func(p string) string { return "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch\n" }
	if err := f.env.Patch(PatchOptions{Input: []byte(add("small.txt")), Auto: true}); err != nil || f.read("small.txt") != "x\n" {
		t.Fatalf("%v", err)
	}
	err := f.env.Patch(PatchOptions{Input: []byte(add("big.txt")), Auto: true})
	if code(err) != exitcode.HumanRequired || f.read("big.txt") != lines(101) {
		t.Fatalf("%v", err)
	}
}

// Added and deleted files go through the path gate: exit 2, nothing touched.
func TestPatchAddDeletePathGate(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	for _, in := range []string{
		"*** Begin Patch\n*** Delete File: ../outside.txt\n*** End Patch\n",
		"*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch\n",
		"--- a/.git/config\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
	} {
		if err := f.env.Patch(PatchOptions{Input: []byte(in), Force: true}); code(err) != exitcode.Usage {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("wrote into .git")
	}
}

// A delete is done last: when a write before it fails, the file is still there.
func TestPatchDeleteRollsBack(t *testing.T) {
	f := newFixture(t)
	f.write("a.py", "a = 1\n")
	f.write("old.txt", "bye\n")
	failWritesOf(t, "a.py")
	in := "*** Begin Patch\n*** Delete File: old.txt\n*** Update File: a.py\n@@\n-a = 1\n+a = 2\n*** End Patch\n"
	if err := f.env.Patch(PatchOptions{Input: []byte(in), Force: true}); err == nil {
		t.Fatal("no error")
	}
	if f.read("old.txt") != "bye\n" || f.read("a.py") != "a = 1\n" {
		t.Fatal("not all or nothing")
	}
}

// A delete of a file that is already gone is applied already: nothing is
// written, and the report says neither created nor deleted.
func TestPatchDeleteOfAFileGone(t *testing.T) {
	f := newFixture(t)
	if err := f.env.Patch(PatchOptions{Input: []byte("*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n"), JSON: true}); err != nil {
		t.Fatal(err)
	}
	var rep PatchReport
	if err := json.Unmarshal(f.out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	fr := rep.Files[0]
	if !rep.OK || fr.Created || fr.Deleted || fr.Written || fr.After != nil || rep.Blocks[0].Code != "already-applied" {
		t.Fatalf("%+v %+v", rep, fr)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "gone.txt")); err == nil {
		t.Fatal("created")
	}
}
