package symbols

import (
	"fmt"
	"strings"
	"testing"
)

// change is one file of a test change: its path and its two versions, "" for
// a side where it does not exist.
type change struct{ path, old, new string }

func side(text string) Side {
	if text == "" {
		return Side{}
	}
	return Side{Present: true, Text: []byte(text)}
}

func resolve(t *testing.T, ignore []string, changes ...change) map[string]Verdict {
	t.Helper()
	files := make([]*File, len(changes))
	for i, c := range changes {
		files[i] = CompareFile(c.path, LanguageOf(c.path), side(c.old), side(c.new))
	}
	out := map[string]Verdict{}
	for i, v := range Resolve(files, ignore) {
		out[changes[i].path] = v
	}
	return out
}

// show renders a verdict on one line: removed, then moved, then renamed.
func show(v Verdict) string {
	var parts []string
	for _, r := range v.Removed {
		parts = append(parts, "-"+r.String())
	}
	for _, m := range v.Moved {
		parts = append(parts, fmt.Sprintf(">%s to %s", m.Ref(), m.To))
	}
	for _, r := range v.Renamed {
		parts = append(parts, fmt.Sprintf("~%s to %s", r.Ref(), r.NewName))
	}
	if v.Note != "" {
		parts = append(parts, "note: "+v.Note)
	}
	return strings.Join(parts, "; ")
}

// module is a Python file of functions: each name gets a body of lines
// statements that only it has.
func module(lines int, names ...string) string {
	var b strings.Builder
	b.WriteString("import json\n\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\ndef %s(x):\n", n)
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "    x = x + %q  # %d\n", n+fmt.Sprint(i), i)
		}
		b.WriteString("    return x\n\n")
	}
	return b.String()
}

func TestResolve(t *testing.T) {
	big := module(20, "load_state", "save_state", "keep")
	tests := []struct {
		name    string
		ignore  []string
		changes []change
		want    map[string]string
	}{
		{"a removed function", nil,
			[]change{{"state.py", big, module(20, "keep")}},
			map[string]string{"state.py": "-def load_state; -def save_state"}},
		{"a function moved to a new module", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"store/io.py", "", module(20, "load_state")}},
			map[string]string{"state.py": ">def load_state to store/io.py", "store/io.py": ""}},
		{"moved with a few lines changed on the way", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")},
				{"io.py", "", strings.Replace(strings.Replace(module(20, "load_state"), `"load_state3"`, `"x"`, 1), `"load_state4"`, `"y"`, 1)}},
			map[string]string{"state.py": ">def load_state to io.py"}},
		{"a stub of the same name elsewhere is no move", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"io.py", "", "def load_state(x):\n    return x\n"}},
			map[string]string{"state.py": "-def load_state", "io.py": ""}},
		{"half the body elsewhere is no move", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"io.py", "", module(10, "load_state")}},
			map[string]string{"state.py": "-def load_state"}},
		{"a file that had the name already is no destination", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"io.py", module(20, "load_state") + "\nx = 1\n", module(20, "load_state") + "\nx = 2\n"}},
			map[string]string{"state.py": "-def load_state", "io.py": ""}},
		{"a move keeps its kind", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"io.py", "", "class load_state:\n" + strings.ReplaceAll(module(20, "x")[13:], "\n", "\n    ") + "pass\n"}},
			map[string]string{"state.py": "-def load_state"}},
		{"a Python function does not move to a Go file", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"io.go", "", "package io\n\nfunc load_state() {}\n"}},
			map[string]string{"state.py": "-def load_state"}},
		{"the best of two destinations", nil,
			[]change{{"state.py", big, module(20, "save_state", "keep")}, {"a.py", "", strings.Replace(module(20, "load_state"), `"load_state3"`, `"x"`, 1)}, {"b.py", "", module(20, "load_state")}},
			map[string]string{"state.py": ">def load_state to b.py"}},
		{"renamed with the same body", nil,
			[]change{{"state.py", big, strings.ReplaceAll(strings.Replace(big, "def load_state(", "def read_state(", 1), "", "")}},
			map[string]string{"state.py": "~def load_state to read_state"}},
		{"renamed with a changed body is removed", nil,
			[]change{{"state.py", big, strings.Replace(strings.Replace(big, "def load_state(", "def read_state(", 1), `"load_state3"`, `"x"`, 1)}},
			map[string]string{"state.py": "-def load_state"}},
		{"two removed twins, one renamed", nil,
			[]change{{"m.py", "def a():\n    return 1\n\ndef b():\n    return 1\n", "def c():\n    return 1\n"}},
			map[string]string{"m.py": "-def b; ~def a to c"}},
		{"an overloaded name stays while one of its definitions does", nil,
			[]change{{"m.py", "@overload\ndef f(x: int): ...\n@overload\ndef f(x: str): ...\ndef f(x):\n    return x\n", "def f(x):\n    return x\n"}},
			map[string]string{"m.py": ""}},
		{"ignored names", []string{"test_*", "_*"},
			[]change{{"m.py", module(3, "_helper", "test_thing", "public") + "class C:\n    def _private(self):\n        pass\n    def kept(self):\n        pass\n",
				"class C:\n    def kept(self):\n        pass\n"}},
			map[string]string{"m.py": "-def public"}},
		{"ignored by qualified name", []string{"C.*"},
			[]change{{"m.py", "class C:\n    def a(self):\n        pass\n    def b(self):\n        pass\n", "class C:\n    def a(self):\n        pass\n"}},
			map[string]string{"m.py": ""}},
		{"a removed class stands for its methods", nil,
			[]change{{"m.py", "class Cache:\n    def get(self):\n        pass\n    class Entry:\n        def size(self):\n            pass\n\ndef f():\n    pass\n", "def f():\n    pass\n"}},
			map[string]string{"m.py": "-class Cache"}},
		{"a removed method", nil,
			[]change{{"m.py", "class Cache:\n    def get(self):\n        pass\n    def put(self):\n        pass\n", "class Cache:\n    def get(self):\n        pass\n"}},
			map[string]string{"m.py": "-def Cache.put"}},
		{"a class moved with its methods", nil,
			[]change{{"m.py", module(5, "f") + "class Cache:\n" + indent(module(8, "get", "put")), module(5, "f")},
				{"cache.py", "", "class Cache:\n" + indent(module(8, "get", "put"))}},
			map[string]string{"m.py": ">class Cache to cache.py"}},
		{"a class moved without one of its methods", nil,
			[]change{{"m.py", module(5, "f") + "class Cache:\n" + indent(module(8, "get", "put", "a", "b", "c", "d", "e", "g", "h", "i")), module(5, "f")},
				{"cache.py", "", "class Cache:\n" + indent(module(8, "get", "a", "b", "c", "d", "e", "g", "h", "i"))}},
			map[string]string{"m.py": "-def Cache.put; >class Cache to cache.py"}},
		{"a renamed class takes its methods along", nil,
			[]change{{"m.py", "class Cache:\n    def get(self):\n        return 1\n", "class Store:\n    def get(self):\n        return 1\n"}},
			map[string]string{"m.py": "~class Cache to Store"}},
		{"a deleted file takes everything with it", nil,
			[]change{{"state.py", big + "class Cache:\n    def get(self):\n        pass\n", ""}},
			map[string]string{"state.py": "-def load_state; -def save_state; -def keep; -class Cache"}},
		{"a deleted file whose functions moved", nil,
			[]change{{"state.py", big, ""}, {"io.py", "", module(20, "load_state", "save_state")}},
			map[string]string{"state.py": "-def keep; >def load_state to io.py; >def save_state to io.py"}},
		{"an added file loses nothing", nil,
			[]change{{"new.py", "", big}},
			map[string]string{"new.py": ""}},
		{"the new version does not parse: nothing it had can be found", nil,
			[]change{{"m.py", "def f():\n    pass\n", "def f(:\n    pass\n"}},
			map[string]string{"m.py": "-def f; note: the new version does not parse (line 1: the statement is not finished (an open bracket or string)); its definitions cannot be read"}},
		{"the old version does not parse: the ratio judges", nil,
			[]change{{"m.py", "def f(:\n    pass\n", "x = 1\n"}},
			map[string]string{"m.py": "note: the old version does not parse (line 1: the statement is not finished (an open bracket or string)); only the share of changed lines is judged"}},
		{"neither parses", nil,
			[]change{{"m.py", "x = (\n", "y = (\n"}},
			map[string]string{"m.py": "note: the old version does not parse (line 1: the statement is not finished (an open bracket or string)); only the share of changed lines is judged"}},
		{"a file without definitions that stops parsing loses none", nil,
			[]change{{"m.py", "x = 1\n", "x = (\n"}},
			map[string]string{"m.py": "note: the new version does not parse (line 1: the statement is not finished (an open bracket or string)); its definitions cannot be read"}},
		{"a Go type removed", nil,
			[]change{{"c.go", "package c\n\ntype Cache struct{}\n\nfunc (c *Cache) Get() {}\n\nfunc New() {}\n", "package c\n\nfunc New() {}\n"}},
			map[string]string{"c.go": "-type Cache; -method Cache.Get"}},
		{"a Go method moved to another file of the package", nil,
			[]change{{"c.go", "package c\n\nfunc (c *Cache) Get() int {\n\treturn c.n\n}\n\nfunc New() {}\n", "package c\n\nfunc New() {}\n"},
				{"get.go", "", "package c\n\n// Get returns it.\nfunc (c *Cache) Get() int { return c.n }\n"}},
			map[string]string{"c.go": ">method Cache.Get to get.go"}},
		{"a Go receiver turned from value to pointer is no removal", nil,
			[]change{{"c.go", "package c\n\nfunc (c Cache) Get() {}\n", "package c\n\nfunc (c *Cache) Get() {}\n"}},
			map[string]string{"c.go": ""}},
		{"commented out in Go", nil,
			[]change{{"c.go", "package c\n\nfunc A() {}\n\nfunc B() {}\n", "package c\n\nfunc A() {}\n\n/*\nfunc B() {}\n*/\n"}},
			map[string]string{"c.go": "-func B"}},
		{"hidden in a Python string", nil,
			[]change{{"m.py", "def a():\n    pass\n\ndef b():\n    pass\n", "def a():\n    pass\n\n_ = '''\ndef b():\n    pass\n'''\n"}},
			map[string]string{"m.py": "-def b"}},
		{"not a source file", nil,
			[]change{{"notes.txt", "def f():\n", ""}},
			map[string]string{"notes.txt": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(t, tt.ignore, tt.changes...)
			for path, want := range tt.want {
				if s := show(got[path]); s != want {
					t.Errorf("%s:\n got %s\nwant %s", path, s, want)
				}
			}
		})
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

func TestSideProblems(t *testing.T) {
	old := Side{Present: true, Text: []byte("def f():\n    pass\n")}
	f := CompareFile("m.py", Python, old, Side{Present: true, Problem: "is over 2 MiB"})
	if v := Resolve([]*File{f}, nil)[0]; show(v) != "-def f; note: the new version is over 2 MiB; its definitions cannot be read" {
		t.Errorf("new side unreadable: %s", show(v))
	}
	f = CompareFile("m.py", Python, Side{Present: true, Problem: "is over 2 MiB"}, old)
	if v := Resolve([]*File{f}, nil)[0]; show(v) != "note: the old version is over 2 MiB; only the share of changed lines is judged" || !f.Skipped {
		t.Errorf("old side unreadable: %s", show(v))
	}
}

func TestKept(t *testing.T) {
	a := Body{1, 2, 3, 3, 4}
	for _, tt := range []struct {
		b    Body
		want float64
	}{{Body{1, 2, 3, 3, 4}, 1}, {Body{4, 3, 2, 1, 3, 9}, 1}, {Body{1, 3}, 0.4}, {Body{3, 3, 3}, 0.4}, {nil, 0}} {
		if got := Kept(a, tt.b); got != tt.want {
			t.Errorf("Kept(%v, %v) = %v, want %v", a, tt.b, got, tt.want)
		}
	}
	if Kept(nil, a) != 0 {
		t.Errorf("an empty body keeps nothing")
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]Language{"a.py": Python, "dir/b.go": Go, "c.txt": None, "py": None, "x.PY": None, ".go": Go} {
		if got := LanguageOf(path); got != want {
			t.Errorf("LanguageOf(%q) = %v, want %v", path, got, want)
		}
	}
}

// Any text parses or fails cleanly, and every definition found has a body.
func FuzzParse(f *testing.F) {
	f.Add("class A:\n    def f(self): pass\n", "package p\n\nfunc (c *C[T]) F() { x := []int{1,\n2,\n} }\n")
	f.Fuzz(func(t *testing.T, py, goSrc string) {
		for lang, src := range map[Language]string{Python: py, Go: goSrc} {
			s, err := Parse(lang, []byte(src))
			if err != nil {
				continue
			}
			for i, d := range s.Defs {
				if d.Name == "" || len(s.Body(i)) == 0 && lang == Python {
					t.Fatalf("%q: definition %d: %+v", src, i, d)
				}
			}
		}
	})
}
