package edit

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/pysource"
)

// T060: append adds the new content at the end.
func TestT060Append(t *testing.T) {
	tests := []struct{ existing, incoming, want string }{
		{"a\nb\n", "c\n", "a\nb\nc\n"},
		{"a\nb", "c\n", "a\nb\nc\n"},
		{"a\r\nb\r\n", "c\n", "a\r\nb\r\nc\r\n"},
		{"", "c\n", "c\n"},
	}
	for _, tt := range tests {
		got, err := Merge("f.txt", []byte(tt.existing), []byte(tt.incoming), Append, 0)
		if err != nil || string(got) != tt.want {
			t.Errorf("append %q + %q = %q, %v; want %q", tt.existing, tt.incoming, got, err, tt.want)
		}
	}
}

// T070: insert puts it before the given line.
func TestT070Insert(t *testing.T) {
	existing := "l1\nl2\nl3\n"
	for line, want := range map[int]string{1: "X\nl1\nl2\nl3\n", 2: "l1\nX\nl2\nl3\n", 4: "l1\nl2\nl3\nX\n"} {
		got, err := Merge("f", []byte(existing), []byte("X\n"), Insert, line)
		if err != nil || string(got) != want {
			t.Errorf("insert before %d: %q %v", line, got, err)
		}
	}
	for _, bad := range []int{0, 5, -1} {
		if _, err := Merge("f", []byte(existing), []byte("X\n"), Insert, bad); err == nil {
			t.Errorf("insert before %d accepted", bad)
		}
	}
}

// T085: replace writes the new content.
func TestT085Replace(t *testing.T) {
	got, err := Merge("f", []byte("old\n"), []byte("new\n"), Replace, 0)
	if err != nil || string(got) != "new\n" {
		t.Errorf("%q %v", got, err)
	}
	if _, err := Merge("f", nil, nil, "shred", 0); err == nil {
		t.Error("unknown strategy accepted")
	}
}

func storeClass() string {
	var b strings.Builder
	b.WriteString("import os\n\n\nclass Store:\n    \"\"\"Keeps things.\n\nA docstring line at column 0.\n\"\"\"\n\n    limit = 10\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "    def m%d(self):\n        return %d\n\n", i, i)
	}
	b.WriteString("    @property\n    def size(self):\n        return (\n            1 +\n            2\n        )\n\n\ndef helper():\n    return 1\n")
	return b.String()
}

// T080: extend merges new members into the class of the same name and keeps
// the ones it has; the result is still valid Python.
func TestT080ExtendPython(t *testing.T) {
	incoming := "import json\n\n\nclass Store:\n    limit = 99\n    ratio = 0.5\n\n    def m1(self):\n        return 'changed'\n\n" +
		"    @staticmethod\n    def fresh():\n        return json.dumps({'a': 1})\n\n    class Inner:\n        pass\n\n\nclass Other:\n    pass\n"
	got, err := Merge("store.py", []byte(storeClass()), []byte(incoming), Extend, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{"    ratio = 0.5\n", "    @staticmethod\n    def fresh():\n        return json.dumps", "    class Inner:\n        pass\n",
		"\nclass Other:\n    pass\n", "def helper():", "def m39(self)", "import json\n", "limit = 10"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Count(s, "def m1(self)") != 1 || strings.Contains(s, "'changed'") || strings.Contains(s, "limit = 99") {
		t.Errorf("an existing member was replaced or duplicated:\n%s", s)
	}
	// the new members are inside the class, before the module's helper
	if strings.Index(s, "def fresh") > strings.Index(s, "def helper") {
		t.Errorf("fresh() was put outside the class:\n%s", s)
	}
	requirePythonParses(t, s, "Store", "fresh", "ratio", "Inner", "m39", "size")
}

func requirePythonParses(t *testing.T, src, class string, members ...string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		return
	}
	check := "import ast,sys\nt=ast.parse(sys.stdin.read())\nc=[n for n in t.body if isinstance(n, ast.ClassDef) and n.name==sys.argv[1]][0]\n" +
		"names=set()\nfor n in c.body:\n  if isinstance(n,(ast.FunctionDef,ast.ClassDef)): names.add(n.name)\n  if isinstance(n,ast.Assign): names.update(x.id for x in n.targets)\n" +
		"missing=[m for m in sys.argv[2:] if m not in names]\nassert not missing, missing\n"
	cmd := exec.Command("python3", append([]string{"-c", check, class}, members...)...)
	cmd.Stdin = strings.NewReader(src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("python3 says: %s\n%s", out, src)
	}
}

func TestExtendPythonEdges(t *testing.T) {
	if _, err := Merge("a.py", []byte("class A:\n    def x(self):\n        pass\n"), []byte("class A:\n    def x(self):\n        return 2\n"), Extend, 0); err == nil || !strings.Contains(err.Error(), "nothing to add") {
		t.Errorf("nothing new: %v", err)
	}
	if _, err := Merge("a.py", []byte("class A:\n    x = (1,\n"), []byte("class A:\n    y = 1\n"), Extend, 0); err == nil {
		t.Error("a broken existing file was extended")
	}
	if _, err := Merge("a.txt", []byte("x"), []byte("y"), Extend, 0); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("%v", err)
	}
	// tabs in the existing class: new members get tabs
	got, err := Merge("a.py", []byte("class A:\n\tdef x(self):\n\t\tpass\n"), []byte("class A:\n    def y(self):\n        return 1\n"), Extend, 0)
	if err != nil || !strings.Contains(string(got), "\tdef y(self):\n\t\treturn 1\n") {
		t.Errorf("%q %v", got, err)
	}
	// comments after the class at column 0 stay after it: members go after the
	// class's last statement and its indented comments, not after the module's
	got, err = Merge("a.py", []byte("class A:\n    x = 1\n    # the last member\n\n# module notes\n# more\n"), []byte("class A:\n    y = 2\n"), Extend, 0)
	if err != nil || string(got) != "class A:\n    x = 1\n    # the last member\n\n    y = 2\n\n# module notes\n# more\n" {
		t.Errorf("%q %v", got, err)
	}
	// a missing final newline stays missing
	got, err = Merge("a.py", []byte("class A:\n    x = 1"), []byte("class A:\n    y = 2\n"), Extend, 0)
	if err != nil || string(got) != "class A:\n    x = 1\n\n    y = 2" {
		t.Errorf("%q %v", got, err)
	}
	// CRLF is kept
	got, err = Merge("a.py", []byte("class A:\r\n    x = 1\r\n"), []byte("class A:\n    y = 2\n"), Extend, 0)
	if err != nil || string(got) != "class A:\r\n    x = 1\r\n\r\n    y = 2\r\n" {
		t.Errorf("%q %v", got, err)
	}
}

// Go's extend keeps the file's BOM and CRLF line endings, which go/format drops.
func TestExtendGoKeepsLineEndings(t *testing.T) {
	existing := "\ufeffpackage p\r\n\r\ntype S struct {\r\n\ta int\r\n}\r\n"
	got, err := Merge("s.go", []byte(existing), []byte("package p\n\ntype S struct {\n\ta int\n\tb int\n}\n"), Extend, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "\ufeffpackage p\r\n") || strings.Count(string(got), "\n") != strings.Count(string(got), "\r\n") || !strings.Contains(string(got), "\tb int\r\n") {
		t.Errorf("%q", got)
	}
}

func TestExtendGo(t *testing.T) {
	existing := "package store\n\n// Store keeps things.\ntype Store struct {\n\tlimit int\n}\n\n// Get gets.\nfunc (s *Store) Get() int { return s.limit }\n"
	incoming := "package store\n\nimport \"strings\"\n\ntype Store struct {\n\tlimit int\n\tname  string\n}\n\n// Get is already there.\nfunc (s *Store) Get() int { return 0 }\n\n// Name names it.\nfunc (s *Store) Name() string { return strings.ToUpper(s.name) }\n\ntype Other struct{}\n"
	got, err := Merge("store.go", []byte(existing), []byte(incoming), Extend, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{"\tname  string\n", "// Name names it.\nfunc (s *Store) Name() string", "type Other struct{}", "import (\n\t\"strings\"\n)", "return s.limit"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Count(s, "func (s *Store) Get()") != 1 {
		t.Errorf("Get duplicated:\n%s", s)
	}
	// a fragment without a package clause works too
	if _, err := Merge("store.go", []byte(existing), []byte("func New() *Store { return &Store{} }\n"), Extend, 0); err != nil {
		t.Error(err)
	}
	if _, err := Merge("store.go", []byte(existing), []byte("func (s *Store) Get() int { return 1 }\n"), Extend, 0); err == nil {
		t.Error("nothing to add, no error")
	}
}

func FuzzExtendPython(f *testing.F) {
	f.Add("class Store:\n    limit = 1\n\n    def a(self):\n        return (1,\n            2)\n", "import os\n\n\nclass Store:\n    def z(self):\n        pass\n")
	f.Fuzz(func(t *testing.T, existing, incoming string) {
		out, err := Merge("f.py", []byte(existing), []byte(incoming), Extend, 0)
		if err == nil && pysource.Check(Parse(out).Strings()) != nil {
			t.Fatalf("extend produced a file that does not parse:\n%s", out)
		}
	})
}
