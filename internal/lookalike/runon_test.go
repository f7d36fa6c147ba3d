package lookalike

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// In C and C++ a // comment that ends in a backslash takes the next line
// in: counted; a macro's backslash, a string's, a block comment's, and
// Python's are not.
func TestRunOn(t *testing.T) {
	c := "#include <string.h>\n\nint check(const char *t, const char *s)\n{\n    // reject a wrong token \\\n    if (strcmp(t, s) != 0) return 0;\n    return 1;\n}\n"
	if f := scan("src/auth.c", c); len(f.RunOn) != 1 || f.RunOn[0] != 5 {
		t.Errorf("C: run-on lines %v, want [5]", f.RunOn)
	}
	ok := "#define SWAP(a, b) do { \\\n    int t = a; a = b; b = t; \\\n} while (0)\nconst char *s = \"// not a comment \\\n\";\n/* a block // comment \\\n   is one anyway */\n"
	if f := scan("src/ok.c", ok); len(f.RunOn) != 0 {
		t.Errorf("C without run-on comments: %v", f.RunOn)
	}
	if f := scan("src/ok.py", "# a comment // \\\nx = 1\n"); len(f.RunOn) != 0 {
		t.Errorf("Python: %v", f.RunOn)
	}
	if f := scan("src/Main.java", "// a comment \\\nx = 1;\n"); len(f.RunOn) != 0 {
		t.Errorf("Java: %v", f.RunOn)
	}
}

// The text of a file is read only when it can change the count.
func TestNeedsText(t *testing.T) {
	word, runOn := &File{}, &File{}
	word.Scan([]byte("# с"), 1)
	runOn.Scan([]byte("x = a // b \\"), 1)
	for _, tt := range []struct {
		f    *File
		path string
		want bool
	}{
		{word, "src/auth.py", true},
		{word, "bin/deploy", true}, // a #! line may say Python
		{word, "docs/README.ru.md", false},
		{runOn, "src/auth.c", true},
		{runOn, "src/calc.py", false}, // floor division, and Python's comments end with the line
		{&File{}, "src/auth.py", false},
		{nil, "src/auth.py", false},
	} {
		if got := tt.f.NeedsText(tt.path); got != tt.want {
			t.Errorf("NeedsText(%s) = %v", tt.path, got)
		}
	}
}

// The lexers never panic, whatever the text, and answer for every place.
func FuzzInCode(f *testing.F) {
	f.Add("x = f\"{a!r:>{w}}\" # с\n'''\nс\n'''\n", 3)
	f.Add("fn f<'a>(x: &'a str) { let s = \"\\\"\"; } // \\\n", 5)
	f.Add("const t = `${a + `${b}`}`; /* x */", 7)
	f.Add("\xff\u0445 = 1 // \\\n\u043ek\u0301", 2)
	f.Fuzz(func(t *testing.T, text string, place int) {
		places := []int{-1, 0, place, len(text) - 1, len(text)}
		for _, s := range []*syntax{pythonSyntax, goSyntax, cppSyntax, jsSyntax, shellSyntax, sqlSyntax, phpSyntax} {
			if got := s.inCodeAt([]byte(text), places); len(got) != len(places) {
				t.Fatalf("%d answers for %d places", len(got), len(places))
			}
		}
		for _, p := range []string{"a.py", "a.c", "a.md", "bin/a"} {
			if f := scan(p, text); f.Count < int64(len(f.Names)) {
				t.Fatalf("%s: %d uses of %d names", p, f.Count, len(f.Names))
			}
		}
	})
}

// A change of many names that read as others, each its own, or of many lines
// whose // comment ends in a backslash, is read in one pass: each name is not
// compared with every one before it, nor the whole file lexed again for each
// line (150,000 names took 20 s, 50,000 lines 25 s).
func TestManyNamesAndLinesLinear(t *testing.T) {
	var names, runOn strings.Builder
	for i := range 150000 {
		fmt.Fprintf(&names, "\u043ek%d ", i)
	}
	for i := range 50000 {
		fmt.Fprintf(&runOn, "int x%d; // note \\\n", i)
	}
	start := time.Now()
	f := &File{}
	f.Scan([]byte(names.String()), 1)
	if f.Count != 150000 || len(f.Names) != 150000 {
		t.Errorf("%d uses of %d names, want 150000 of 150000", f.Count, len(f.Names))
	}
	g := &File{}
	text := runOn.String()
	for i, l := range strings.SplitAfter(text, "\n")[:50000] {
		g.Scan([]byte(strings.TrimSuffix(l, "\n")), int64(i+1))
	}
	g.Resolve("src/a.c", []byte(text), true)
	if len(g.RunOn) == 0 {
		t.Error("no run-on comment found")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
