package excerpt

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// bigPython is a module of n filler functions around the ones a test names.
func bigPython(n int) string {
	var b strings.Builder
	b.WriteString("\"\"\"A large module.\"\"\"\nimport os\nfrom itertools import (\n    chain,\n    islice,\n)\n\ntry:\n    from math import sumprod\nexcept ImportError:\n    sumprod = None\n\n__all__ = [\n    'chunked',\n    'windowed',\n]\n\n")
	for i := range n {
		fmt.Fprintf(&b, "def filler_%d(iterable):\n    \"\"\"%s\"\"\"\n    return list(iterable)\n\n\n", i, strings.Repeat("padding ", 10))
	}
	b.WriteString("@decorated\ndef chunked(iterable, n,\n            strict=False):\n    return [iterable[i:i + n] for i in range(0, len(iterable), n)]\n\n\n")
	b.WriteString("class Windowed:\n    def __init__(self, n):\n        self.n = n\n\n    def step(self):\n        raise ValueError('boom')\n\n\ndef last_one():\n    return 1\n")
	return b.String()
}

func TestFit(t *testing.T) {
	py := bigPython(400)
	lineOf := func(src, s string) int {
		return strings.Count(src[:strings.Index(src, s)], "\n") + 1
	}
	boom := lineOf(py, "raise ValueError")
	tests := []struct {
		name     string
		path     string
		content  string
		want     Want
		max      int
		whole    bool
		describe string
		has      []string // each must be in what is sent
		hasNot   []string
		err      string
	}{
		{name: "small file whole", path: "a.py", content: "def f():\n    return 1\n", max: 1000, whole: true, describe: "whole"},
		{name: "large python: named and failing definitions, imports, outline, the end", path: "m.py", content: py, max: 20000,
			want:     Want{Names: map[string]bool{"chunked": true}, Lines: []int{boom}},
			describe: "outline + 4 definitions",
			has: []string{
				"@decorated\ndef chunked(iterable, n,\n            strict=False):\n    return [iterable[i:i + n] for i in range(0, len(iterable), n)]\n",
				"import os\nfrom itertools import (\n    chain,\n    islice,\n)\n",
				"try:\n    from math import sumprod\nexcept ImportError:\n    sumprod = None\n",
				"__all__ = [\n    'chunked',\n    'windowed',\n]\n",
				"class Windowed:\n    def __init__(self, n):",
				"        raise ValueError('boom')\n",
				"def last_one():\n    return 1\n",
				fmt.Sprintf("%d: def chunked(iterable, n,\n", lineOf(py, "def chunked")),
				fmt.Sprintf("%d: def filler_7(iterable):\n", lineOf(py, "def filler_7(")),
				fmt.Sprintf("Lines %d-%d (", lineOf(py, "@decorated"), lineOf(py, "@decorated")+3),
			},
			hasNot: []string{"return list(iterable)"}},
		{name: "the budget leaves out what does not fit", path: "m.py", content: py, max: len(py) / 4,
			want:     Want{Names: map[string]bool{"chunked": true}},
			describe: "outline + 3 definitions", has: []string{"def chunked(iterable, n,\n            strict=False):\n"}},
		{name: "an outline over the budget", path: "m.py", content: py, max: 2000, err: "even its outline is"},
		{name: "not python or go", path: "data.txt", content: strings.Repeat("x\n", 1000), max: 100, err: "only Python and Go files"},
		{name: "does not parse", path: "bad.py", content: "def f(:\n" + strings.Repeat("x = 1\n", 100), max: 100, err: "cannot be outlined"},
		{name: "large go: method of a named type, imports", path: "c.go", content: bigGo(300), max: 12000,
			want:     Want{Names: map[string]bool{"Cache": true, "Get": true}},
			describe: "outline + 3 definitions",
			has: []string{"import (\n\t\"fmt\"\n\t\"strings\"\n)\n",
				"// Get returns the value.\nfunc (c *Cache) Get(k string) string {\n\treturn c.m[k]\n}\n",
				"type Cache struct {\n\tm map[string]string\n}\n",
				": func filler7() string {\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Fit(tt.path, tt.content, tt.want, tt.max)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Whole != tt.whole || p.Describe() != tt.describe {
				t.Errorf("whole %v, %q; want %v, %q", p.Whole, p.Describe(), tt.whole, tt.describe)
			}
			if len(p.Content) > tt.max {
				t.Errorf("%d bytes sent, over %d", len(p.Content), tt.max)
			}
			for _, s := range tt.has {
				if !strings.Contains(p.Content, s) {
					t.Errorf("not sent: %q\n%s", s, p.Content)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(p.Content, s) {
					t.Errorf("sent: %q", s)
				}
			}
			for _, b := range p.Blocks { // every block is the file's own lines
				lines := strings.Split(tt.content, "\n")
				if !reflect.DeepEqual(b.Lines, lines[b.Start-1:b.End]) {
					t.Errorf("block %d-%d is not the file's lines", b.Start, b.End)
				}
			}
		})
	}
}

func bigGo(n int) string {
	var b strings.Builder
	b.WriteString("package c\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func filler%d() string {\n\treturn fmt.Sprint(%q)\n}\n\n", i, strings.Repeat("x", 20))
	}
	b.WriteString("type Cache struct {\n\tm map[string]string\n}\n\n// Get returns the value.\nfunc (c *Cache) Get(k string) string {\n\treturn c.m[k]\n}\n\nfunc (o *Other) Get() string { return strings.ToUpper(\"\") }\n")
	return b.String()
}

func TestImported(t *testing.T) {
	fsys := fstest.MapFS{
		"pkg/__init__.py":      {Data: []byte("from .more import *\nfrom .recipes import take as take\nfrom . import sub\n")},
		"pkg/more.py":          {Data: []byte("from .recipes import consume\nfrom .deep import *\nimport os\n")},
		"pkg/recipes.py":       {Data: []byte("import itertools\n")},
		"pkg/deep.py":          {Data: []byte("from .hidden import x\n")},
		"pkg/hidden.py":        {Data: []byte("")},
		"pkg/sub/__init__.py":  {Data: []byte("")},
		"pkg/sub/inner.py":     {Data: []byte("")},
		"src/lib/__init__.py":  {Data: []byte("")},
		"src/lib/util.py":      {Data: []byte("")},
		"tests/helper.py":      {Data: []byte("")},
		"go.mod":               {Data: []byte("module example.com/m\n\ngo 1.22\n")},
		"a/a.go":               {Data: []byte("package a\n")},
		"a/b.go":               {Data: []byte("package a\n")},
		"a/a_test.go":          {Data: []byte("package a\n")},
		"internal/x/x.go":      {Data: []byte("package x\n")},
		"internal/x/x_test.go": {Data: []byte("package x\n")},
	}
	roots := []string{".", "src"}
	tests := []struct {
		file, content string
		want          []string
	}{
		{"tests/test_more.py", "from pkg import *\n", []string{"pkg/__init__.py", "pkg/more.py", "pkg/deep.py", "pkg/recipes.py", "pkg/sub/__init__.py"}},
		{"tests/test_more.py", "import pkg.more as m, os\nfrom pkg.sub import inner\n", []string{"pkg/more.py", "pkg/deep.py", "pkg/sub/__init__.py", "pkg/sub/inner.py"}},
		{"tests/test_lib.py", "from lib.util import f\nfrom . import helper\nfrom .helper import g\nimport numpy\n", []string{"src/lib/util.py", "tests/helper.py"}},
		{"tests/test_lib.py", "def test():\n    from lib import util\n", []string{"src/lib/__init__.py", "src/lib/util.py"}},
		{"pkg/sub/test_x.py", "from ..recipes import take\nfrom .. import more\n", []string{"pkg/recipes.py", "pkg/__init__.py", "pkg/more.py", "pkg/deep.py", "pkg/sub/__init__.py"}},
		{"a/a_test.go", "package a\n\nimport (\n\t\"testing\"\n\t\"example.com/m/internal/x\"\n\t\"example.com/mother\"\n)\n", []string{"a/a.go", "a/b.go", "internal/x/x.go"}},
	}
	for _, tt := range tests {
		got := Imported(fsys, roots, tt.file, tt.content)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %q:\n got %q\nwant %q", tt.file, tt.content, got, tt.want)
		}
	}
}

func TestNamed(t *testing.T) {
	tests := []struct {
		out  string
		want []Ref
	}{
		{"Traceback (most recent call last):\n  File \"/w/pkg/more.py\", line 12, in f\n", []Ref{{"/w/pkg/more.py", 12}}},
		{"pkg/more.py:340: in chunked\n    raise E\nE   ValueError\ntests/test_more.py:7: ValueError\n", []Ref{{"pkg/more.py", 340}, {"tests/test_more.py", 7}}},
		{"--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1\n./c.go:5:2: undefined: y\n", []Ref{{"x_test.go", 12}, {"./c.go", 5}}},
		{"nothing here: file.py without a line, a.go:x", nil},
	}
	for _, tt := range tests {
		if got := Named(tt.out); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %v, want %v", tt.out, got, tt.want)
		}
	}
}

func TestCodeIdentifiers(t *testing.T) {
	doc := "# Add the function\n\nThe first one returns `mi.interleave_randomly(a, b)`.\n\n```python\nassert spy(x)\n```\n"
	got := CodeIdentifiers(doc)
	for _, w := range []string{"mi", "interleave_randomly", "a", "b", "assert", "spy", "x", "python"} {
		if !got[w] {
			t.Errorf("%s not found in %v", w, got)
		}
	}
	for _, w := range []string{"first", "returns", "Add", "function"} {
		if got[w] {
			t.Errorf("%s is prose", w)
		}
	}
}

func TestGoTestFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"go.mod":              {Data: []byte("module example.com/m\n")},
		"calc/calc.go":        {Data: []byte("package calc\n")},
		"calc/mul_test.go":    {Data: []byte("package calc\n\nfunc TestMul(t *testing.T) {}\n")},
		"calc/add_test.go":    {Data: []byte("package calc\n\nfunc TestAdd(t *testing.T) {}\nfunc TestMulti(t *testing.T) {}\n")},
		"calc/v1.2/x_test.go": {Data: []byte("package x\n\nfunc TestX(t *testing.T) {}\n")},
		"example_test.go":     {Data: []byte("package m\n\nfunc TestTop(t *testing.T) {}\n")},
	}
	tests := []struct {
		id   string
		want []string
	}{
		{"example.com/m/calc.TestMul", []string{"calc/mul_test.go"}},
		{"example.com/m/calc.TestMul/a.b/c", []string{"calc/mul_test.go"}},
		{"example.com/m/calc/v1.2.TestX", []string{"calc/v1.2/x_test.go"}},
		{"example.com/m.TestTop", []string{"example_test.go"}},
		{"example.com/mother.TestMul", nil},
		{"tests/test_x.py::test_x", nil},
	}
	for _, tt := range tests {
		if got := GoTestFiles(fsys, tt.id); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.id, got, tt.want)
		}
	}
}
