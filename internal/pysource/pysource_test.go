package pysource

import (
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
