package edit

import (
	"fmt"
	"strings"
	"testing"
)

const seedTwo = `### CHANGE 1: greet louder
FIND:
` + "```python" + `
def hello():
    return "hi"
` + "```" + `

REPLACE WITH:
` + "```python" + `
def hello():
    return "HELLO"
` + "```" + `

### CHANGE 2: add farewell
FIND:
` + "```" + `
def last():
    return 0
` + "```" + `

REPLACE WITH:
` + "```" + `
def last():
    return 0


def bye():
    return "bye"
` + "```" + `
`

// T040: valid FIND/REPLACE blocks parse.
func TestT040ParseValid(t *testing.T) {
	bs, err := ParseBlocks(seedTwo)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].Description != "greet louder" || strings.Join(bs[0].Find, "\n") != "def hello():\n    return \"hi\"" ||
		strings.Join(bs[0].Replace, "\n") != "def hello():\n    return \"HELLO\"" || bs[0].Format != "seed" || bs[0].Index != 1 {
		t.Errorf("%+v", bs)
	}
}

// T050: several changes keep their order.
func TestT050ParseMultiple(t *testing.T) {
	in := seedTwo + "\n### CHANGE 3: third\nFIND:\n```\nx\n```\nREPLACE WITH:\n```\ny\n```\n"
	bs, err := ParseBlocks(in)
	if err != nil || len(bs) != 3 || bs[2].Description != "third" || bs[1].Description != "add farewell" {
		t.Fatalf("%+v %v", bs, err)
	}
}

// T060: malformed input is an error with the line, never a partial parse.
func TestT060ParseMalformed(t *testing.T) {
	tests := map[string]string{
		"missing REPLACE section":     "### CHANGE 1: x\nFIND:\n```\na\n```\n",
		"REPLACE without a fence":     "FIND:\n```\na\n```\nREPLACE WITH:\nb\n",
		"unclosed fence":              "FIND:\n```\na\n",
		"REPLACE before FIND":         "REPLACE WITH:\n```\na\n```\n",
		"SEARCH without divider":      "<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n",
		"SEARCH without end":          "<<<<<<< SEARCH\na\n=======\nb\n",
		"divider alone":               "=======\n",
		"nothing at all":              "just some prose\n",
		"FIND followed by prose only": "FIND:\nsome text\n",
	}
	for name, in := range tests {
		if _, err := ParseBlocks(in); err == nil {
			t.Errorf("%s: parsed", name)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("%s: %T", name, err)
		}
	}
}

// T110: an answer cut off at the agent's token limit ends inside a block; it is
// told apart from a malformed one, so the caller can ask again instead of
// reporting a bad format.
func TestT110DetectTruncation(t *testing.T) {
	tests := []struct {
		name, in  string
		truncated bool
	}{
		{"cut inside FIND's fence", "### CHANGE 1: x\nFIND:\n```\ndef a(", true},
		{"cut after FIND's fence", "### CHANGE 1: x\nFIND:\n```\na\n```\n", true},
		{"cut after REPLACE WITH:", "FIND:\n```\na\n```\nREPLACE WITH:\n", true},
		{"cut inside REPLACE's fence", "FIND:\n```\na\n```\nREPLACE WITH:\n```\nb\n", true},
		{"cut inside SEARCH", "<<<<<<< SEARCH\na\n", true},
		{"cut inside REPLACE", "<<<<<<< SEARCH\na\n=======\nb\n", true},
		{"second block cut", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=", true},
		{"REPLACE without fence", "FIND:\n```\na\n```\nREPLACE WITH:\nb\n", false},
		{"divider alone", "=======\n", false},
		{"no blocks", "prose\n", false},
	}
	for _, tt := range tests {
		_, err := ParseBlocks(tt.in)
		pe, ok := err.(*ParseError)
		if !ok {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if pe.Truncated != tt.truncated {
			t.Errorf("%s: truncated = %v, want %v (%v)", tt.name, pe.Truncated, tt.truncated, err)
		}
	}
}

func TestParseAider(t *testing.T) {
	in := "Here are the changes.\n\nm.py\n```python\n<<<<<<< SEARCH\ndef a():\n    pass\n=======\ndef a():\n    return 1\n>>>>>>> REPLACE\n```\n\n" +
		"<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\nother/n.py\n<<<<<<< SEARCH\n=======\nnew file\n>>>>>>> REPLACE\n" +
		"### FILE: third.py\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n"
	bs, err := ParseBlocks(in)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"m.py", "m.py", "other/n.py", "third.py"}
	if len(bs) != 4 {
		t.Fatalf("%+v", bs)
	}
	for i, b := range bs {
		if b.File != files[i] || b.Format != "aider" {
			t.Errorf("block %d: file %q format %s", i+1, b.File, b.Format)
		}
	}
	if len(bs[2].Find) != 0 || strings.Join(bs[2].Replace, "") != "new file" {
		t.Errorf("create block %+v", bs[2])
	}
}

// Only a line that looks like a path names the file of the block after it:
// prose before a block is prose.
func TestParseFileNames(t *testing.T) {
	block := "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
	tests := map[string]string{
		"I will create the helper.\n" + block:           "",
		"Here is the fix\n" + block:                     "",
		"Here is the fix:\n```python\n" + block + "```": "",
		"src/app.py\n" + block:                          "src/app.py",
		"`src/app.py`\n" + block:                        "src/app.py",
		"**src/app.py**\n```\n" + block + "```":         "src/app.py",
		"app.py:\n" + block:                             "app.py",
		"### FILE: `src/x.go`\n" + block:                "src/x.go",
		"### FILE: Makefile\n" + block:                  "Makefile",
		"\ufeffsrc/bom.py\n" + block:                    "src/bom.py",
	}
	for in, want := range tests {
		bs, err := ParseBlocks(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if bs[0].File != want {
			t.Errorf("%q: file %q, want %q", in, bs[0].File, want)
		}
	}
}

func lines(s string) *Text { return Parse([]byte(s)) }

func applyOne(t *testing.T, file, find, repl string) (string, Outcome) {
	t.Helper()
	res, out := ApplyAll(lines(file), "f", []Block{{Index: 1, Find: SplitLines(find), Replace: SplitLines(repl)}})
	return string(res.Bytes()), out[0]
}

// T070: one change lands where its FIND is.
func TestT070ApplySingle(t *testing.T) {
	got, o := applyOne(t, "a\nb\nc\n", "b\n", "B\n")
	if got != "a\nB\nc\n" || o.Code != Applied || o.Tier != Exact || o.Start != 2 || o.End != 2 {
		t.Errorf("%q %+v", got, o)
	}
}

// T080: several changes apply in order, each on the result of the ones before.
func TestT080ApplyMultiple(t *testing.T) {
	bs, _ := ParseBlocks(seedTwo)
	file := "def f():\n    return 1\n\n\ndef hello():\n    return \"hi\"\n\n\ndef last():\n    return 0\n"
	res, out := ApplyAll(lines(file), "m.py", bs)
	got := string(res.Bytes())
	if out[0].Code != Applied || out[1].Code != Applied || !strings.Contains(got, "\"HELLO\"") || !strings.HasSuffix(got, "def bye():\n    return \"bye\"\n") {
		t.Errorf("%+v\n%s", out, got)
	}
	// the second sees the first's result
	seq := []Block{{Index: 1, Find: []string{"x = 1"}, Replace: []string{"x = 2"}}, {Index: 2, Find: []string{"y = x"}, Replace: []string{"y = x + 1"}}}
	res, out = ApplyAll(lines("x = 1\ny = x\n"), "f", seq)
	if string(res.Bytes()) != "x = 2\ny = x + 1\n" || out[1].Start != 2 {
		t.Errorf("%q %+v", res.Bytes(), out)
	}
}

// T090: a FIND that matches twice is an error with every location.
func TestT090Ambiguous(t *testing.T) {
	file := "def a():\n    x = 0\n\ndef b():\n    x = 0\n"
	got, o := applyOne(t, file, "    x = 0\n", "    x = 9\n")
	if o.Code != Ambiguous || got != file || fmt.Sprint(o.Matches) != "[2 5]" {
		t.Fatalf("%q %+v", got, o)
	}
	if !strings.Contains(o.Message, "lines 2, 5") || !strings.Contains(o.Detail, "include the 1 line before") || !strings.Contains(o.Detail, "def b():") {
		t.Errorf("%s\n%s", o.Message, o.Detail)
	}
}

// T100: a FIND that is not there is an error that shows the closest region.
func TestT100NotFound(t *testing.T) {
	file := "def go(self):\n    return 1\n\ndef other():\n    pass\n"
	got, o := applyOne(t, file, "def go(self):\n    return 2\n", "def go(self):\n    return 3\n")
	if o.Code != NotFound || got != file {
		t.Fatalf("%+v", o)
	}
	if !strings.Contains(o.Detail, "closest region is lines 1–2") || !strings.Contains(o.Detail, `first difference at line 2: the file has "    return 1", the block has "    return 2"`) {
		t.Errorf("%s", o.Detail)
	}
	_, o = applyOne(t, file, "nothing like it\n", "x\n")
	if !strings.HasSuffix(o.Detail, "nothing in the file resembles it") || !strings.Contains(o.Detail, "| nothing like it") {
		t.Errorf("%s", o.Detail)
	}
}

// T130: a FIND with different indentation matches by the indentation tier, and
// the replacement is re-indented to the file's.
func TestT130Whitespace(t *testing.T) {
	tests := []struct {
		name, file, find, repl, want string
		tier                         Tier
	}{
		{"dedented block in a class", "class A:\n    def go(self):\n        return 1\n", "def go(self):\n    return 1\n", "def go(self):\n    return 2\n",
			"class A:\n    def go(self):\n        return 2\n", Indentation},
		{"tabs in the file, spaces in the block", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "if x {\n    return 1\n}\n", "if x {\n    return 2\n}\n",
			"func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n", Indentation},
		{"trailing whitespace", "a = 1   \nb = 2\n", "a = 1\n", "a = 3\n", "a = 3\nb = 2\n", TrailingWhitespace},
		{"blank lines differ", "def a():\n\n    return 1\n", "def a():\n    return 1\n", "def a():\n    return 2\n", "def a():\n    return 2\n", BlankLines},
		{"exact wins over tolerant", "  x = 1\nx = 1\n", "x = 1\n", "x = 2\n", "  x = 1\nx = 2\n", Exact},
	}
	for _, tt := range tests {
		got, o := applyOne(t, tt.file, tt.find, tt.repl)
		if got != tt.want || o.Tier != tt.tier {
			t.Errorf("%s: got %q tier %s (%s), want %q %s", tt.name, got, o.Tier, o.Message, tt.want, tt.tier)
		}
	}
}

// The blank-lines tier replaces exactly the lines it matched, blank lines at
// the ends of the FIND included: a FIND that drops an interior blank line and
// ends with one leaves no blank line too many (issue 14).
func TestBlankLinesTierByteExact(t *testing.T) {
	tests := []struct{ name, file, find, repl, want string }{
		{"FIND ends with a blank line",
			"def a():\n    x = 1\n\n    return x\n\n\ndef b():\n    pass\n",
			"def a():\n    x = 1\n    return x\n\n", "def a():\n    x = 2\n\n    return x\n\n",
			"def a():\n    x = 2\n\n    return x\n\n\ndef b():\n    pass\n"},
		{"FIND starts with a blank line",
			"import os\n\n\ndef a():\n\n    return 1\n",
			"\ndef a():\n    return 1\n", "\ndef a():\n    return 2\n",
			"import os\n\n\ndef a():\n    return 2\n"},
		{"two blank lines at the end, the file has one",
			"a = 1\n\nb = 2\n\nc = 3\n",
			"a = 1\nb = 2\n\n\n", "a = 1\n\nb = 20\n\n",
			"a = 1\n\nb = 20\n\nc = 3\n"},
	}
	for _, tt := range tests {
		got, o := applyOne(t, tt.file, tt.find, tt.repl)
		if got != tt.want || o.Tier != BlankLines {
			t.Errorf("%s: got %q (%s), want %q", tt.name, got, o.Message, tt.want)
		}
	}
}

func TestAlreadyAppliedAndOverlap(t *testing.T) {
	got, o := applyOne(t, "a\nB\nc\n", "b\n", "B\n")
	if o.Code != AlreadyApplied || o.Failed() || got != "a\nB\nc\n" {
		t.Errorf("%+v", o)
	}
	seq := []Block{{Index: 1, Find: []string{"a", "b"}, Replace: []string{"A", "B"}}, {Index: 2, Find: []string{"B", "c"}, Replace: []string{"X"}}}
	_, out := ApplyAll(lines("a\nb\nc\n"), "f", seq)
	if out[1].Code != Overlap {
		t.Errorf("%+v", out[1])
	}
	// next to each other is fine
	seq = []Block{{Index: 1, Find: []string{"a"}, Replace: []string{"A"}}, {Index: 2, Find: []string{"b"}, Replace: []string{"B"}}}
	res, out := ApplyAll(lines("a\nb\nc\n"), "f", seq)
	if out[1].Code != Applied || string(res.Bytes()) != "A\nB\nc\n" {
		t.Errorf("%+v", out)
	}
}

// "Already applied" needs the replacement exactly, once, and with something
// more than blank lines in it; otherwise a FIND that is not there is not found.
func TestAlreadyAppliedIsStrict(t *testing.T) {
	file := "def f(x):\n    if x:\n        return None\n    return x + 1\n"
	tests := []struct {
		name, file, find, repl string
		want                   string
	}{
		{"replacement only loosely there", file, "def f(y):\n    return y + 1\n", "  return None\n", NotFound},
		{"replacement twice", "x = 1\ny = 2\nx = 1\n", "x = 0\n", "x = 1\n", NotFound},
		{"replacement blank", "a\n\nb\n", "zzz\n", "\n", NotFound},
		{"replacement exactly once", "a\nB\nc\n", "b\n", "B\n", AlreadyApplied},
		// the FIND is part of its own replacement: running the block again
		// must not add the new lines a second time
		{"FIND inside its replacement", "import os\nimport sys\n", "import os\n", "import os\nimport sys\n", AlreadyApplied},
		{"FIND inside, but the replacement absent", "import os\nimport re\n", "import os\n", "import os\nimport sys\n", Applied},
		// a block that only deletes has a replacement that was there before:
		// its presence says nothing, and a FIND copied wrong is not found
		{"a deletion whose FIND is not there", "import os\nimport re\n", "import warnings\nimport os\nimport re\n", "import os\nimport re\n", NotFound},
	}
	for _, tt := range tests {
		got, o := applyOne(t, tt.file, tt.find, tt.repl)
		if o.Code != tt.want {
			t.Errorf("%s: %s (%+v)", tt.name, o.Code, o)
		}
		if tt.want != Applied && got != tt.file {
			t.Errorf("%s: changed to %q", tt.name, got)
		}
	}
}

// CRLF, a BOM and a missing final newline survive an edit.
func TestKeepsLineEndings(t *testing.T) {
	tests := []struct{ file, find, repl, want string }{
		{"one\r\ntwo\r\nthree", "two\n", "TWO\n", "one\r\nTWO\r\nthree"},
		{"\xEF\xBB\xBFa\nb\n", "a\n", "A\n", "\xEF\xBB\xBFA\nb\n"},
		{"a\nlast", "last\n", "LAST\nmore\n", "a\nLAST\nmore"},
		{"a\r\nb\n", "a\n", "x\ny\n", "x\r\ny\r\nb\n"},
		{"keep\nlast", "last\n", "", "keep"},
		{"a\nb", "", "", "a\nb"},
	}
	for _, tt := range tests {
		got, o := applyOne(t, tt.file, tt.find, tt.repl)
		if got != tt.want {
			t.Errorf("%q: got %q, want %q (%s)", tt.file, got, tt.want, o.Message)
		}
	}
	if got := string(Parse([]byte("x\r\ny\nz")).Bytes()); got != "x\r\ny\nz" {
		t.Errorf("round trip %q", got)
	}
}

func TestCreateWithEmptyFind(t *testing.T) {
	got, o := applyOne(t, "", "", "hello\n")
	if got != "hello\n" || o.Code != Applied {
		t.Errorf("%q %+v", got, o)
	}
	if _, o := applyOne(t, "x\n", "", "y\n"); o.Code != EmptyFind {
		t.Errorf("%+v", o)
	}
}

func FuzzParseBlocks(f *testing.F) {
	f.Add(seedTwo)
	f.Add("m.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
	f.Fuzz(func(t *testing.T, in string) {
		bs, err := ParseBlocks(in)
		if err == nil && len(bs) == 0 {
			t.Fatal("no error and no blocks")
		}
	})
}

// FuzzFind: a match never differs from the block beyond its tier's tolerance.
func FuzzFind(f *testing.F) {
	f.Add("class A:\n    def go(self):\n        return 1\n", "def go(self):\n    return 1\n")
	f.Add("a\n\nb\n", "a\nb\n")
	f.Add("\tx\n\ty\n", "    x\n    y\n")
	f.Fuzz(func(t *testing.T, file, find string) {
		ls := Parse([]byte(file)).Strings()
		fl := SplitLines(find)
		for _, m := range Find(ls, fl) {
			window := ls[m.Start:m.End]
			switch m.Tier {
			case Exact:
				if strings.Join(window, "\n") != strings.Join(fl, "\n") {
					t.Fatalf("exact match differs: %q vs %q", window, fl)
				}
			case TrailingWhitespace:
				if !equal(window, fl, trimRight) {
					t.Fatalf("trailing-whitespace match differs: %q vs %q", window, fl)
				}
			case Indentation:
				for i := range fl {
					if strings.TrimSpace(window[i]) != strings.TrimSpace(fl[i]) {
						t.Fatalf("indentation match differs beyond indentation: %q vs %q", window, fl)
					}
				}
			case BlankLines:
				if nonBlank(window) != nonBlank(fl) {
					t.Fatalf("blank-lines match differs beyond blank lines: %q vs %q", window, fl)
				}
			}
		}
		// the hashed index that ApplyAll uses finds exactly what Find finds
		if got, want := newHashedLines(ls).find(fl), Find(ls, fl); !sameMatches(got, want) {
			t.Fatalf("hashed find %v, Find %v", got, want)
		}
		bs := []Block{{Index: 1, Find: fl, Replace: []string{"R"}}}
		ApplyAll(Parse([]byte(file)), "f", bs) // never panics
	})
}

func sameMatches(a, b []Match) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Start != b[i].Start || a[i].End != b[i].End || a[i].Tier != b[i].Tier {
			return false
		}
	}
	return true
}

func nonBlank(ls []string) string {
	var out []string
	for _, l := range ls {
		if trimRight(l) != "" {
			out = append(out, trimRight(l))
		}
	}
	return strings.Join(out, "\n")
}

// The whole-file answer that git tdd prompt asks for is unwrapped exactly;
// anything else is not taken for it.
func TestWholeFile(t *testing.T) {
	tests := []struct {
		in, path, content string
		ok                bool
	}{
		{"### FILE: a.py\n```python\nx = 1\n```\n", "a.py", "x = 1\n", true},
		{"\n### FILE: `a.py`\n\n```\nx = 1\r\ny = 2\r\n```\n\n", "a.py", "x = 1\r\ny = 2\r\n", true},
		{"### FILE: README.md\n````\n# T\n```sh\nmake\n```\n````\n", "README.md", "# T\n```sh\nmake\n```\n", true},
		{"### FILE: e.txt\n```\n```\n", "e.txt", "", true},
		{"x = 1\n", "", "", false},
		{"### FILE: a.py\nx = 1\n", "", "", false},
		{"### FILE: a.py\n```\nx = 1\n```\nand some prose\n", "", "", false},
		{"### FILE: a.py\n````\nx = 1\n```\n", "", "", false},
		{"### FILE: a.py\n```\nx = 1\n", "", "", false},
		{"prose\n### FILE: a.py\n```\nx = 1\n```\n", "", "", false},
	}
	for _, tt := range tests {
		path, content, ok := WholeFile([]byte(tt.in))
		if ok != tt.ok || path != tt.path || string(content) != tt.content {
			t.Errorf("%q: %q %q %v", tt.in, path, content, ok)
		}
	}
}
