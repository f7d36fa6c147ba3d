package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runner = "junit" names each test from the report alone, the same way in
// every run: pytest's node id when the report carries a .py file, else the
// file (or a classname that is a file of the run directory, as vitest writes)
// and the test's name, else the classname and the name.
func TestJUnitAnyIDs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "math.test.ts"), []byte("it('multiplies', ...)\n"), 0o644)
	xml := `<testsuites>
<testsuite name="vitest"><testcase classname="src/math.test.ts" name="mul &gt; multiplies"><failure message="expected 5 to be 6"/></testcase></testsuite>
<testsuite name="calc"><testcase classname="calc" name="tests::mul"><failure type="panic">assertion failed</failure></testcase></testsuite>
<testsuite name="jest"><testcase classname="Calc multiplies" name="Calc multiplies" file="src/calc.test.js"/></testsuite>
<testsuite name="pytest"><testcase classname="tests.test_a.TestK" name="test_m" file="tests/test_a.py"><error message="boom"/></testcase></testsuite>
<testsuite name="pytest"><testcase classname="" name="tests.test_b" file="tests/test_b.py"><error message="collection failure">ImportError</error></testcase></testsuite>
<testsuite name="maven"><testcase classname="com.example.CalcTest" name="testMul()"><skipped/></testcase></testsuite>
<testsuite name="bare"><testcase name="alone"/></testsuite>
<testsuite name="escape"><testcase classname="../../etc/passwd" name="x"/></testsuite>
</testsuites>`
	tests, err := parseJUnitAny([]byte(xml), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"src/math.test.ts::mul > multiplies failed src/math.test.ts",
		"calc::tests::mul failed ",
		"src/calc.test.js::Calc multiplies passed src/calc.test.js",
		"tests/test_a.py::TestK::test_m error tests/test_a.py",
		"tests/test_b.py error tests/test_b.py file",
		"com.example.CalcTest::testMul() skipped ",
		"alone passed ",
		"../../etc/passwd::x passed ",
	}
	var got []string
	for _, tt := range tests {
		s := tt.ID + " " + string(tt.Outcome) + " " + tt.File
		if tt.Collection {
			s += " file"
		}
		got = append(got, s)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestShortName(t *testing.T) {
	for id, want := range map[string]string{
		"src/math.test.ts::mul > multiplies": "multiplies",
		"calc::tests::mul":                   "mul",
		"com.example.CalcTest::testMul()":    "testMul",
		"m/p::TestMul/case_1":                "TestMul",
		"m/p.TestMul":                        "TestMul",
		"tests/test_a.py::test_p[2-x]":       "test_p",
		"src/a.spec.js::Calc › adds":         "adds",
		"alone":                              "alone",
		"src/v.test.js::handles v1.2 Tests":  "handles v1.2 Tests",
	} {
		if got := ShortName(id); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", id, got, want)
		}
	}
}

// The junit runner: {junit} in the arguments and the environment becomes a
// fresh path; the report (or a directory of reports) is read after the run;
// the exit code in pytest's terms comes from the report and the command's own.
func TestJUnitRunner(t *testing.T) {
	pass := `<testsuite><testcase classname="c" name="ok"/></testsuite>`
	fail := `<testsuite><testcase classname="c" name="ok"/><testcase classname="c" name="bad"><failure message="no"/></testcase></testsuite>`
	tests := []struct {
		name, script string
		exit         int
		ids          string
		err          bool
	}{
		{"pass", "printf '%s' '" + pass + "' > \"$1\"", 0, "c::ok passed", false},
		{"fail", "printf '%s' '" + fail + "' > \"$1\"; exit 1", 1, "c::ok passed,c::bad failed", false},
		{"failures the command does not admit", "printf '%s' '" + fail + "' > \"$1\"", 1, "c::ok passed,c::bad failed", false},
		{"exit without a failure in the report", "printf '%s' '" + pass + "' > \"$1\"; exit 3", 3, "c::ok passed", false},
		{"no report after a failure: a build error", "echo 'error[E0425]: cannot find function mul' >&2; exit 101", 2, "", false},
		{"no report after a pass", "exit 0", 0, "", true},
		{"no tests", "printf '<testsuites/>' > \"$1\"", 5, "", false},
		{"broken XML", "printf '<testsuite' > \"$1\"; exit 1", 2, "", false},
		{"a directory of reports", "mkdir \"$1\"; printf '%s' '" + pass + "' > \"$1/a.xml\"; printf '%s' '" +
			strings.ReplaceAll(fail, `name="ok"`, `name="ok2"`) + "' > \"$1/b.xml\"; echo x > \"$1/notes.txt\"; exit 1", 1, "c::ok passed,c::ok2 passed,c::bad failed", false},
	}
	for _, tt := range tests {
		res, err := Run(context.Background(), Spec{Command: []string{"sh", "-c", `set -- "${1#--out=}"; ` + tt.script, "sh", "--out={junit}"}, Runner: "junit",
			Timeout: 10 * time.Second, Dir: t.TempDir()})
		if tt.err {
			if err == nil {
				t.Errorf("%s: no error", tt.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var ids []string
		for _, x := range res.Tests {
			ids = append(ids, x.ID+" "+string(x.Outcome))
		}
		if res.Exit != tt.exit || strings.Join(ids, ",") != tt.ids {
			t.Errorf("%s: exit %d tests %v, want %d %s", tt.name, res.Exit, ids, tt.exit, tt.ids)
		}
	}
}

// {junit} in the environment: tools that take the report's path from a
// variable (jest-junit's JEST_JUNIT_OUTPUT_FILE).
func TestJUnitRunnerEnv(t *testing.T) {
	res, err := Run(context.Background(), Spec{Command: []string{"sh", "-c", `printf '<testsuite><testcase classname="c" name="ok"/></testsuite>' > "$OUT"`},
		Runner: "junit", Timeout: 10 * time.Second, Env: append(os.Environ(), "OUT={junit}")})
	if err != nil || res.Exit != 0 || len(res.Tests) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
}

// Each row of namings, from a report the real runner wrote (testdata/junit:
// vitest 4.1.12, jest 30.5.2 with jest-junit 17.0.0, node 20.20.2's
// --test-reporter=junit, gotestsum 1.13.0; cargo-nextest's in the shape its
// documentation gives, as it could not be installed here): the id of each
// test, its outcome and its file.
func TestJUnitNamings(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"src/str.test.js", "src/missing.test.js", "test/str.test.js", "test/missing.test.js"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	for _, tt := range []struct {
		report string
		from   string // the directory the runner ran in, as the report names it
		want   []string
	}{
		{"vitest.xml", "", []string{
			"src/missing.test.js error src/missing.test.js file",
			"src/str.test.js::top level passed src/str.test.js",
			"src/str.test.js::upper > handles the empty string passed src/str.test.js",
			"src/str.test.js::upper > nested > fails here failed src/str.test.js",
			"src/str.test.js::lower > handles the empty string failed src/str.test.js",
			"src/str.test.js::lower > lowercases A passed src/str.test.js",
			"src/str.test.js::lower > lowercases B passed src/str.test.js",
			"src/str.test.js::lower > returns 'a' for 'A' passed src/str.test.js",
			"src/str.test.js::lower > pow(2, 3) = 8 passed src/str.test.js",
			"src/str.test.js::with x > keeps it passed src/str.test.js",
			"src/str.test.js::with y > keeps it passed src/str.test.js",
			"src/str.test.js::template > pow 1 2 is 1 passed src/str.test.js",
			"src/str.test.js::template > is skipped skipped src/str.test.js",
		}},
		{"jest-junit.xml", "", []string{ // JEST_JUNIT_ADD_FILE_ATTRIBUTE, JEST_JUNIT_REPORT_TEST_SUITE_ERRORS
			"src/str.test.js::top level passed src/str.test.js",
			"src/str.test.js::upper handles the empty string passed src/str.test.js",
			"src/str.test.js::upper nested fails here failed src/str.test.js",
			"src/str.test.js::lower handles the empty string failed src/str.test.js",
			"src/str.test.js::lower lowercases A passed src/str.test.js",
			"src/str.test.js::lower lowercases B passed src/str.test.js",
			"src/str.test.js::lower returns a for A passed src/str.test.js",
			"src/str.test.js::lower pow(2, 3) = 8 passed src/str.test.js",
			"src/str.test.js::lower pow 1 2 is 1 passed src/str.test.js",
			"src/str.test.js::with x keeps it passed src/str.test.js",
			"src/str.test.js::with y keeps it passed src/str.test.js",
			"src/missing.test.js error src/missing.test.js file",
			"src/missing.test.js error src/missing.test.js file",
		}},
		{"jest-junit-nofile.xml", "", []string{ // jest-junit as it comes
			"top level passed ",
			"upper handles the empty string passed ",
			"upper nested fails here failed ",
			"lower handles the empty string failed ",
			"lower lowercases A passed ",
			"lower lowercases B passed ",
			"lower returns a for A passed ",
			"lower pow(2, 3) = 8 passed ",
			"lower pow 1 2 is 1 passed ",
			"with x keeps it passed ",
			"with y keeps it passed ",
		}},
		{"jest-junit-ancestor-separator.xml", "", []string{ // ancestorSeparator " › ", the default templates
			"src/str.test.js::top level passed src/str.test.js",
			"src/str.test.js::upper handles the empty string passed src/str.test.js",
			"src/str.test.js::upper › nested fails here failed src/str.test.js",
			"src/str.test.js::lower handles the empty string failed src/str.test.js",
			"src/str.test.js::lower lowercases A passed src/str.test.js",
			"src/str.test.js::lower lowercases B passed src/str.test.js",
			"src/str.test.js::lower returns a for A passed src/str.test.js",
			"src/str.test.js::lower pow(2, 3) = 8 passed src/str.test.js",
			"src/str.test.js::lower pow 1 2 is 1 passed src/str.test.js",
			"src/str.test.js::with x keeps it passed src/str.test.js",
			"src/str.test.js::with y keeps it passed src/str.test.js",
		}},
		{"jest-junit-separator.xml", "", []string{ // ancestorSeparator " › ", classname {classname}, title {title}
			"src/str.test.js::top level passed src/str.test.js",
			"src/str.test.js::upper::handles the empty string passed src/str.test.js",
			"src/str.test.js::upper › nested::fails here failed src/str.test.js",
			"src/str.test.js::lower::handles the empty string failed src/str.test.js",
			"src/str.test.js::lower::lowercases A passed src/str.test.js",
			"src/str.test.js::lower::lowercases B passed src/str.test.js",
			"src/str.test.js::lower::returns a for A passed src/str.test.js",
			"src/str.test.js::lower::pow(2, 3) = 8 passed src/str.test.js",
			"src/str.test.js::lower::pow 1 2 is 1 passed src/str.test.js",
			"src/str.test.js::with x::keeps it passed src/str.test.js",
			"src/str.test.js::with y::keeps it passed src/str.test.js",
		}},
		{"node.xml", "/tmp/h24node", []string{
			"test/missing.test.js error test/missing.test.js file",
			"top level passed ",
			"upper > handles the empty string passed ",
			"upper > nested > fails here failed ",
			"lower > handles the empty string failed ",
			"lower > lowercases A passed ",
			"lower > lowercases B passed ",
		}},
		{"gotestsum.xml", "", []string{
			"example.com/calc::TestTable/wrong failed ",
			"example.com/calc::TestTable failed ",
			"example.com/calc::TestAdd passed ",
			"example.com/calc::TestTable/small passed ",
		}},
		{"nextest.xml", "", []string{
			"calc::tests::adds passed ",
			"calc::tests::multiplies failed ",
			"calc::integration::subtracts passed ",
		}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "junit", tt.report))
		if err != nil {
			t.Fatal(err)
		}
		if tt.from != "" {
			data = []byte(strings.ReplaceAll(string(data), tt.from, dir))
		}
		tests, err := parseJUnitAny(data, dir)
		if err != nil {
			t.Fatalf("%s: %v", tt.report, err)
		}
		var got []string
		for _, x := range tests {
			s := x.ID + " " + string(x.Outcome) + " " + x.File
			if x.Collection {
				s += " file"
			}
			got = append(got, s)
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.report, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// Every row of namings is some runner's: a report of each fits it.
func TestJUnitNamingsUsed(t *testing.T) {
	cases := []junitCase{
		{Classname: "tests.test_a", Name: "test_x", File: "tests/test_a.py"},
		{Classname: "src/a.test.ts", Name: "src/a.test.ts", File: "src/a.test.ts"},
		{Classname: "src/a.test.ts", Name: "a > b", File: "src/a.test.ts"},
		{Classname: "a b", Name: "a b"},
		{Classname: "test", Name: "b", suites: []string{"a"}},
		{Classname: "a", Name: "b", File: "src/a.test.js"},
		{Classname: "example.com/calc", Name: "TestAdd"},
		{Name: "alone"},
	}
	for i, n := range namings {
		if !n.fits(cases[i]) {
			t.Errorf("row %d (%s) does not fit %+v", i, n.runner, cases[i])
		}
		for _, m := range namings[:i] {
			if m.fits(cases[i]) {
				t.Errorf("row %d (%s): %+v is taken by %s first", i, n.runner, cases[i], m.runner)
			}
		}
	}
}
