package lifecycle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-tdd/git-tdd/internal/runner"
)

// The natural red (DESIGN §5): what a test file cannot import must belong to
// the repository for the failure to be this branch's red.
func TestNaturalCause(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"calc", "src/shapes", "lib/extra"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "single.py"), nil, 0o644)
	m := ModulesOf(root, "lib")
	tb := func(last string) string {
		return "ImportError while importing test module 'x'.\nTraceback:\ntests/test_a.py:1: in <module>\n    from calc import mul\nE   " + last
	}
	for _, tt := range []struct {
		name, last string
		want       bool
	}{
		{"a name missing from a module of the repository", "ImportError: cannot import name 'mul' from 'calc' (" + root + "/calc/__init__.py)", true},
		{"a name missing from a namespace package of the repository", "ImportError: cannot import name 'mul' from 'calc' (unknown location)", true},
		{"a name missing from an installed package", "ImportError: cannot import name 'mul' from 'numpy' (/usr/lib/python3/dist-packages/numpy/__init__.py)", false},
		{"a name missing from a package installed in the worktree", "ImportError: cannot import name 'x' from 'pkg' (" + root + "/.venv/lib/python3.11/site-packages/pkg/__init__.py)", false},
		{"a circular import", "ImportError: cannot import name 'mul' from partially initialized module 'calc' (most likely due to a circular import) (" + root + "/calc/__init__.py)", false},
		{"a submodule missing from a package of the repository", "ModuleNotFoundError: No module named 'calc.parse'", true},
		{"a submodule of a package under src/", "ModuleNotFoundError: No module named 'shapes.circle'", true},
		{"a submodule of a package on the configured PYTHONPATH", "ModuleNotFoundError: No module named 'extra.more'", true},
		{"a third-party module that is not installed", "ModuleNotFoundError: No module named 'nosuchpkg_xyz'", false},
		{"a top-level module of the repository itself (the path is wrong, not the code)", "ModuleNotFoundError: No module named 'calc'", false},
		{"an attribute of a module of the repository at import", "AttributeError: module 'calc' has no attribute 'square'", true},
		{"an attribute of a single-file module", "AttributeError: module 'single' has no attribute 'f'", true},
		{"an attribute of an installed module", "AttributeError: module 'os' has no attribute 'nothing'", false},
		{"a syntax error", "SyntaxError: invalid syntax", false},
		{"a fixture error", "RuntimeError: the fixture breaks", false},
	} {
		if got := m.NaturalCause(tb(tt.last)); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
	if m.NaturalCause("") {
		t.Error("an empty message")
	}
}

// Whose failure (DESIGN §5): a test counts for the branch when its definition
// is new or changed, not when its file was merely touched.
func TestTestChanged(t *testing.T) {
	base := []byte("import calc\n\n\ndef test_old():\n    assert 1 == 2\n\n\nclass TestK:\n    def test_m(self):\n        pass\n\n\nclass TestInherits(Base):\n    pass\n")
	for _, tt := range []struct {
		name, id, now string
		want          bool
	}{
		{"a comment appended", "t.py::test_old", string(base) + "# appended\n", false},
		{"blank lines and comments inside", "t.py::test_old", "import calc\n\n\ndef test_old():\n    # why\n\n    assert 1 == 2  # really\n", false},
		{"the body changed", "t.py::test_old", "def test_old():\n    assert 1 == 3\n", true},
		{"a decorator added", "t.py::test_old", "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_old(x):\n    assert 1 == 2\n", true},
		{"a new test", "t.py::test_new", string(base) + "\n\ndef test_new():\n    assert calc.mul(2, 3) == 6\n", true},
		{"a parametrized id of an unchanged test", "t.py::test_old[1-2]", string(base), false},
		{"a parametrized id with :: in it", "t.py::test_new[a::b]", string(base) + "\n\ndef test_new(x):\n    assert x\n", true},
		{"a method changed", "t.py::TestK::test_m", "class TestK:\n    def test_m(self):\n        assert calc.sub(3, 1) == 2\n", true},
		{"the same method in another class", "t.py::TestJ::test_m", string(base) + "\n\nclass TestJ:\n    def test_m(self):\n        pass\n", true},
		{"an inherited test of an unchanged class", "t.py::TestInherits::test_base", string(base), false},
		{"an inherited test of a new class", "t.py::TestNew::test_base", string(base) + "\n\nclass TestNew(Base):\n    pass\n", true},
		{"a test that cannot be found", "t.py::test_ghost", string(base), false},
	} {
		if got := TestChanged("t.py", tt.id, base, []byte(tt.now)); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
	if !TestChanged("t.py", "t.py::test_old", nil, base) {
		t.Error("a test of a file new on the branch")
	}
	goBase := []byte("package calc\n\nimport \"testing\"\n\n// TestMul checks Mul.\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	goComment := []byte("package calc\n\nimport \"testing\"\n\n// TestMul checks Mul, reworded.\nfunc TestMul(t *testing.T) {\n\t// a note\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	goChanged := []byte("package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 7 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	if TestChanged("calc_test.go", "example.com/calc.TestMul", goBase, goComment) {
		t.Error("go: comments only")
	}
	if !TestChanged("calc_test.go", "example.com/calc.TestMul/sub", goBase, goChanged) {
		t.Error("go: the body changed")
	}
	// runner = "junit" names go tests CLASSNAME::NAME (gotestsum, go-junit-report)
	if TestChanged("calc_test.go", "example.com/calc::TestMul", goBase, goComment) || !TestChanged("calc_test.go", "example.com/calc::TestMul/sub", goBase, goChanged) {
		t.Error("go through a JUnit report")
	}
}

// A language git tdd does not parse (runner = "junit" with cargo-nextest,
// Maven; JavaScript's title paths are TestTestChangedJS's): a test counts as the branch's when its name is in the
// file now and was not in it where the branch started; a changed body of an
// old test does not count, since nothing can show it changed.
func TestTestChangedOtherLanguages(t *testing.T) {
	base := []byte("describe('mul', () => {\n  it('multiplies', () => expect(mul(2, 3)).toBe(6))\n})\n")
	for _, tt := range []struct {
		name, file, id string
		base, now      []byte
		want           bool
	}{
		{"a new test", "src/m.test.ts", "src/m.test.ts::doubles", base, append(append([]byte{}, base...), "it('doubles', () => expect(dbl(2)).toBe(4))\n"...), true},
		{"an old test", "src/m.test.ts", "src/m.test.ts::mul > multiplies", base, base, false},
		{"an old test whose body changed", "src/m.test.ts", "src/m.test.ts::mul > multiplies", base, []byte("it('multiplies', () => expect(mul(2, 4)).toBe(8))\n"), false},
		{"a new file", "tests/calc.rs", "calc::tests::mul", nil, []byte("#[test]\nfn mul() { assert_eq!(calc::mul(2, 3), 6); }\n"), true},
		{"a name the file does not hold", "tests/calc.rs", "calc::tests::ghost", nil, []byte("fn mul() {}\n"), false},
		{"java", "src/test/java/CalcTest.java", "com.example.CalcTest::testMul()", []byte("class CalcTest {}\n"), []byte("class CalcTest { @Test void testMul() {} }\n"), true},
	} {
		if got := TestChanged(tt.file, tt.id, tt.base, tt.now); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
	if Hollow("src/m.test.ts", "src/m.test.ts::mul > multiplies", base) {
		t.Error("hollow is only judged in languages git tdd parses")
	}
}

// A JavaScript test is the branch's when its file is new, or when its whole
// title path (the describe blocks and its title, each.each templates as
// patterns) is not in the file where the branch started: one row per
// runner's naming (internal/runner's namings).
func TestTestChangedJS(t *testing.T) {
	base := []byte(`import { describe, it, expect } from 'vitest'
describe('upper', () => {
  it('handles the empty string', () => expect(upper('')).toBe(''))
})
test('top level', () => expect(1).toBe(1))
`)
	lower := append(append([]byte{}, base...), `describe('lower', () => {
  it('handles the empty string', () => expect(lower('')).toBe(''))
  it.each(['A', 'B'])('lowercases %s', (s) => expect(lower(s)).toBe(s.toLowerCase()))
  it.each([{ input: 'A', want: 'a' }])('returns $want for $input', ({ input, want }) => expect(lower(input)).toBe(want))
  test.each([[2, 3, 8]])('pow(%i, %i) = %i', (a, b, c) => expect(pow(a, b)).toBe(c))
})
`...)
	for _, tt := range []struct {
		runner, id string
		base       []byte
		want       bool
	}{
		{"vitest", "src/s.test.ts::lower > handles the empty string", base, true},
		{"vitest", "src/s.test.ts::upper > handles the empty string", base, false},
		{"vitest", "src/s.test.ts::lower > lowercases A", base, true},
		{"vitest", "src/s.test.ts::lower > returns 'a' for 'A'", base, true},
		{"vitest", "src/s.test.ts::lower > pow(2, 3) = 8", base, true},
		{"vitest", "src/s.test.ts::lower > lowercases A", nil, true},
		{"vitest", "src/s.test.ts::lower > returns 'a' for 'A'", lower, false},
		{"vitest", "src/s.test.ts::lower > ghost", base, false},
		{"jest-junit default", "src/s.test.ts::lower handles the empty string", base, true},
		{"jest-junit default", "src/s.test.ts::upper handles the empty string", base, false},
		{"jest-junit default", "src/s.test.ts::lower returns a for A", base, true},
		{"jest-junit default", "src/s.test.ts::top level", base, false},
		{"jest-junit default, no file attribute", "lower handles the empty string", base, true},
		{"jest-junit ancestorSeparator › and classname apart", "src/s.test.ts::lower::lowercases B", base, true},
		{"jest-junit ancestorSeparator › and classname apart", "src/s.test.ts::upper::handles the empty string", base, false},
		{"node --test", "lower > handles the empty string", base, true},
		{"node --test", "upper > handles the empty string", base, false},
	} {
		if got := TestChanged("src/s.test.ts", tt.id, tt.base, lower); got != tt.want {
			t.Errorf("%s: %q: got %v", tt.runner, tt.id, got)
		}
	}
}

// A JavaScript test file that did not load is the natural red when what it
// imports from the repository does not exist yet, in the runner's words.
func TestNaturalFileJS(t *testing.T) {
	var m Modules
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"Error: Cannot find module './mul.js' imported from /w/src/mul.test.ts\n ❯ src/mul.test.ts:2:1", true},
		{"  ● Test suite failed to run\n\n    Cannot find module './mul' from 'src/mul.test.js'", true},
		{`Error: Failed to resolve import "../src/mul" from "test/mul.test.ts". Does the file exist?`, true},
		{"SyntaxError: The requested module './calc.js' does not provide an export named 'mul'", true},
		{"Error: Cannot find module 'left-pad' imported from /w/src/mul.test.ts", false},
		{"SyntaxError: Unexpected token '}'", false},
		{"test failed", false}, // node's runner does not say why
	} {
		if got := m.NaturalFile(runner.Test{File: "src/mul.test.ts", Message: tt.msg}); got != tt.want {
			t.Errorf("%q: got %v", tt.msg, got)
		}
	}
}
