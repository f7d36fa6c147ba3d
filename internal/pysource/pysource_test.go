package pysource

import (
	"regexp"
	"strings"
	"testing"
)

func TestStatements(t *testing.T) {
	src := `import os  # why


@dec
class A(Base):  # a comment
    """Doc with # no comment
    inside."""

    x: int = (1 +
              2)
    def f(self,
          y):
        s = 'it''s # not a comment'
        return \
            y
`
	stmts, err := Statements(strings.Split(src, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Stmt{
		{0, 1, 0, "import", "import os  # why", "import os"},
		{3, 4, 0, "decorator", "", "@dec"},
		{4, 5, 0, "class", "A", "class A(Base):"},
		{5, 7, 4, "other", "", `"""Doc with # no comment inside."""`},
		{8, 10, 4, "assign", "x", "x: int = (1 + 2)"},
		{10, 12, 4, "def", "f", "def f(self, y):"},
		{12, 13, 8, "assign", "s", `s = 'it''s # not a comment'`},
		{13, 15, 8, "other", "", `return \ y`},
	}
	if len(stmts) != len(want) {
		t.Fatalf("%d statements: %+v", len(stmts), stmts)
	}
	for i := range want {
		if stmts[i] != want[i] {
			t.Errorf("statement %d: %+v, want %+v", i, stmts[i], want[i])
		}
	}
	if b := Body(stmts, 2); len(b) != 5 || b[0].Start != 5 {
		t.Errorf("the class's body: %+v", b)
	}
	if b := Body(stmts, 5); len(b) != 2 {
		t.Errorf("the method's body: %+v", b)
	}
}

func TestCheck(t *testing.T) {
	good := []string{"def f():", "    s = '''", "text", "'''", "    return (1,", "        2)", "x = 'a#b'  # c", "\tif x:", "\t\ty = 1"}
	if err := Check(good); err != nil {
		t.Errorf("good code: %v", err)
	}
	for _, bad := range [][]string{{"x = (1,"}, {"x = 'open"}, {"x = )"}, {"if x:", "        a", "    b"}, {"s = '''never closed"}} {
		if Check(bad) == nil {
			t.Errorf("%q passed", bad)
		}
	}
}

func FuzzStatements(f *testing.F) {
	f.Add("def f(x):\n    return (x,\n 1)  # c\n")
	f.Add("s = '''\n#'''\n")
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := Statements(strings.Split(src, "\n"))
		if err != nil {
			return
		}
		for i, s := range stmts {
			if s.End <= s.Start || s.Code == "" || (i > 0 && s.Start < stmts[i-1].End) {
				t.Fatalf("statement %d: %+v", i, s)
			}
		}
	})
}

// The regular expressions classify first used: the hand-written matcher that
// replaced them (they took most of a parse) must agree with them.
var (
	oracleDef    = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z_]\w*)`)
	oracleClass  = regexp.MustCompile(`^class\s+([A-Za-z_]\w*)`)
	oracleAssign = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]`)
	oracleAnnot  = regexp.MustCompile(`^([A-Za-z_]\w*)\s*:\s*[^=]+$`)
)

func oracleClassify(t string) (kind, name string) {
	switch {
	case strings.HasPrefix(t, "@"):
		return "decorator", ""
	case oracleClass.MatchString(t):
		return "class", oracleClass.FindStringSubmatch(t)[1]
	case oracleDef.MatchString(t):
		return "def", oracleDef.FindStringSubmatch(t)[1]
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from "):
		return "import", t
	case oracleAssign.MatchString(t):
		return "assign", oracleAssign.FindStringSubmatch(t)[1]
	case oracleAnnot.MatchString(t):
		return "assign", oracleAnnot.FindStringSubmatch(t)[1]
	}
	return "other", ""
}

func TestClassify(t *testing.T) {
	for _, src := range []string{
		"def f(x):", "async def g():", "async  def\th(", "asyncdef f():", "def", "def 1x():", "defx = 1",
		"class A:", "class\tB(C):", "classy = 2", "class", "x = 1", "x == 1", "x =", "x: int = 1", "x: int",
		"x:", "x: a == b", "x :int", "x: dict[str, int] = {}", "x += 1", "x[0] = 1", "_private = None",
		"Ünïcode = 1", "from a import b", "import os", "imports = 1", "@dec", "return x", "x := 1", "x: =1",
		"f(x=1)", "a.b = 1", "x\t=\t1", "x = = 1", "x:\t\ty", "x: y\n", "x\n= 1",
	} {
		var s Stmt
		classify(&s, src)
		if k, n := oracleClassify(src); s.Kind != k || s.Name != n {
			t.Errorf("classify(%q) = %q %q, want %q %q", src, s.Kind, s.Name, k, n)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("x: int = 1")
	f.Add("async def f():")
	f.Fuzz(func(t *testing.T, src string) {
		var s Stmt
		classify(&s, src)
		if k, n := oracleClassify(src); s.Kind != k || s.Name != n {
			t.Fatalf("classify(%q) = %q %q, want %q %q", src, s.Kind, s.Name, k, n)
		}
	})
}

func TestParse(t *testing.T) {
	stmts, err := Parse([]string{"class A:", "    def f(self):", "        return 1", "x = 2"})
	if err != nil || len(stmts) != 4 || stmts[1].Name != "f" {
		t.Errorf("Parse: %v %+v", err, stmts)
	}
	for _, bad := range [][]string{{"x = (1,"}, {"if x:", "        a", "    b"}} {
		if _, err := Parse(bad); err == nil || err.Error() != Check(bad).Error() {
			t.Errorf("Parse(%q) = %v, want Check's error", bad, err)
		}
	}
}

// Walk is Parse without the code, read straight from the source text.
func TestWalk(t *testing.T) {
	for _, src := range []string{
		"import os  # why\n\n\n@dec\nclass A(Base):\n    \"\"\"Doc\n    inside.\"\"\"\n    def f(self,\n          y):\n        return \\\n            y\n",
		"def f():\r\n    pass\r\n",
		"x = 1",
		"",
		"\n\n# only a comment\n",
		"x = (1,\n",
		"if x:\n        a\n    b\n",
	} {
		want, werr := Parse(strings.Split(src, "\n"))
		var got []Stmt
		gerr := Walk(src, func(s Stmt) { got = append(got, s) })
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%q: error %v, want %v", src, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d statements, want %d", src, len(got), len(want))
			continue
		}
		for i := range want {
			w := want[i]
			w.Code = ""
			if got[i] != w {
				t.Errorf("%q: statement %d: %+v, want %+v", src, i, got[i], w)
			}
		}
	}
}

func FuzzWalk(f *testing.F) {
	f.Add("def f(x):\n    return (x,\n 1)  # c\n")
	f.Fuzz(func(t *testing.T, src string) {
		want, werr := Parse(strings.Split(src, "\n"))
		var got []Stmt
		gerr := Walk(src, func(s Stmt) { got = append(got, s) })
		if (werr == nil) != (gerr == nil) || werr == nil && len(got) != len(want) {
			t.Fatalf("%q: Walk %v after %d statements, Parse %v and %d", src, gerr, len(got), werr, len(want))
		}
		if werr != nil {
			return
		}
		for i, w := range want {
			if g := got[i]; g.Start != w.Start || g.End != w.End || g.Kind != w.Kind || g.Name != w.Name || g.Indent != w.Indent {
				t.Fatalf("%q: statement %d: %+v, want %+v", src, i, g, w)
			}
		}
	})
}
