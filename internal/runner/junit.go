package runner

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

type junitSuite struct {
	XMLName xml.Name
	Name    string       `xml:"name,attr"`
	Suites  []junitSuite `xml:"testsuite"`
	Cases   []junitCase  `xml:"testcase"`
}

type junitCase struct {
	Classname string      `xml:"classname,attr"`
	Name      string      `xml:"name,attr"`
	File      string      `xml:"file,attr"`
	Failure   *junitIssue `xml:"failure"`
	Error     *junitIssue `xml:"error"`
	Skipped   *junitIssue `xml:"skipped"`
	// suites are the names of the <testsuite> elements around the case,
	// outermost first (node's runner nests one per describe block)
	suites []string
}

type junitIssue struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func readJUnit(path string) ([]Test, error) {
	data, err := readReport(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s is empty", path)
	}
	return ParseJUnit(data)
}

// ParseJUnit reads a JUnit XML report (<testsuites> or <testsuite> at the top),
// naming each test by its pytest node id when the report carries its file.
func ParseJUnit(data []byte) ([]Test, error) {
	cases, err := junitCases(data)
	if err != nil {
		return nil, err
	}
	out := make([]Test, len(cases))
	for i, c := range cases {
		out[i] = c.test()
	}
	return out, nil
}

// junitCases are the test cases of a report, in order, however deep their
// suites nest.
func junitCases(data []byte) ([]junitCase, error) {
	var root junitSuite
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	var out []junitCase
	var walk func(s junitSuite, path []string)
	walk = func(s junitSuite, path []string) {
		if s.XMLName.Local == "testsuite" {
			path = append(path[:len(path):len(path)], s.Name)
		}
		for _, c := range s.Cases {
			c.suites = path
			out = append(out, c)
		}
		for _, sub := range s.Suites {
			walk(sub, path)
		}
	}
	walk(root, nil)
	return out, nil
}

func (c junitCase) test() Test {
	t := Test{ID: c.nodeID(), File: c.File, Outcome: Passed}
	t.Collection = t.ID == c.File && c.File != ""
	switch {
	case c.Error != nil:
		t.Outcome, t.Message = Errored, c.Error.message()
	case c.Failure != nil && strings.HasPrefix(c.Failure.Message, "[XPASS(strict)]"):
		t.Outcome, t.Message = XPassed, c.Failure.message()
	case c.Failure != nil:
		t.Outcome, t.Message = Failed, c.Failure.message()
	case c.Skipped != nil:
		t.Outcome, t.Message = Skipped, c.Skipped.message()
	}
	return t
}

func (i *junitIssue) message() string {
	if m := strings.TrimSpace(i.Text); m != "" {
		return trimMessage(m)
	}
	return trimMessage(i.Message)
}

// trimMessage is a test's message as a result keeps it: trimmed, and cut at
// 2,000 bytes.
func trimMessage(m string) string {
	m = strings.TrimSpace(m)
	if len(m) > 2000 {
		m = m[:2000] + "…"
	}
	return m
}

// nodeID rebuilds pytest's node id "tests/test_a.py::TestK::test_m" from the
// xunit1 attributes: file, and the class path after the module in classname.
func (c junitCase) nodeID() string {
	if c.File == "" {
		if c.Classname == "" {
			return c.Name
		}
		return c.Classname + "::" + c.Name
	}
	module := strings.ReplaceAll(strings.TrimSuffix(c.File, ".py"), "/", ".")
	if c.Classname == "" && c.Name == module {
		return c.File // the module itself: a collection error
	}
	class := strings.TrimPrefix(strings.TrimPrefix(c.Classname, module), ".")
	if class == "" {
		return c.File + "::" + c.Name
	}
	return c.File + "::" + strings.ReplaceAll(class, ".", "::") + "::" + c.Name
}

// ReportPlaceholder is what runner = "junit" replaces, in the command's
// arguments and environment, with the path of the report to write.
const ReportPlaceholder = "{junit}"

// junitResults reads the report of runner = "junit" (a file, or a directory
// of *.xml files as Maven and Gradle write) and gives the exit code in
// pytest's terms from it and the command's own: a report with a failure or an
// error is 1 whatever the command says; no report after a failing command is
// 2 (it broke before testing: a build error); every test passed but the
// command failed is 3 (something outside the tests broke); no tests is 5. No
// report after a command that exited 0 is an error: nothing was judged.
func junitResults(report string, raw int, dir string) ([]Test, int, error) {
	data, err := readReports(report)
	var tampered *ReportError
	if errors.As(err, &tampered) {
		return nil, 0, err
	}
	if err != nil || len(data) == 0 {
		if raw == 0 {
			if err == nil {
				err = errors.New("no *.xml file in it")
			}
			return nil, 0, fmt.Errorf("the test command exited 0 without writing its JUnit report to %s (%v): check where it writes it", ReportPlaceholder, err)
		}
		return nil, 2, nil
	}
	var tests []Test
	for _, d := range data {
		ts, err := parseJUnitAny(d, dir)
		if err != nil {
			if raw == 0 {
				return nil, 0, fmt.Errorf("the JUnit report does not parse: %w", err)
			}
			return nil, 2, nil
		}
		tests = append(tests, ts...)
	}
	failed := false
	for _, t := range tests {
		failed = failed || t.Outcome == Failed || t.Outcome == Errored || t.Outcome == XPassed
	}
	switch {
	case raw < 0:
		return tests, -1, nil
	case failed:
		return tests, 1, nil
	case len(tests) == 0:
		if raw != 0 {
			return tests, 2, nil
		}
		return tests, 5, nil
	case raw != 0:
		return tests, 3, nil
	}
	return tests, 0, nil
}

// readReports reads the report file, or each *.xml file of the report
// directory in name order.
func readReports(report string) ([][]byte, error) {
	fi, err := os.Lstat(report)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		data, err := readReport(report)
		if err != nil || len(data) == 0 {
			return nil, err
		}
		return [][]byte{data}, nil
	}
	var files []string
	err = filepath.WalkDir(report, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out [][]byte
	for _, f := range files {
		data, err := readReport(f)
		if err != nil {
			return nil, err
		}
		if len(data) > 0 {
			out = append(out, data)
		}
	}
	return out, nil
}

// parseJUnitAny reads a report of any tool. Each test is named from the
// report alone, the same in every run, by the first row of namings that fits
// it; the file is the file attribute, or a classname that names a file of dir
// (vitest writes the test file there).
func parseJUnitAny(data []byte, dir string) ([]Test, error) {
	cases, err := junitCases(data)
	if err != nil {
		return nil, err
	}
	out := make([]Test, len(cases))
	for i, c := range cases {
		if c.File == "" && isFileIn(dir, c.Classname) {
			c.File = c.Classname
		}
		if c.Classname == "test" || c.Classname == jestSuiteFailed {
			// a whole file's failure, named by its path: node's absolute
			if f := fileNamed(dir, c.Name); f != "" && (c.File == "" || c.File == f) {
				c.File, c.Name = f, f
			}
		}
		t := c.test()
		for _, n := range namings {
			if n.fits(c) {
				// pytest names a module it could not collect by its file
				t.ID = n.id(c)
				t.Collection = n.file || c.File != "" && t.ID == c.File
				break
			}
		}
		if t.Collection && t.Outcome == Failed {
			t.Outcome = Errored // the file did not load: none of its tests ran
		}
		out[i] = t
	}
	return out, nil
}

// A naming is how one runner's JUnit report names a test, and the id git tdd
// gives it. The ids keep the runner's own words (the separators between the
// describe blocks and the title among them): internal/jstitle finds a
// JavaScript test by any of them. A row with file set is a test file that
// failed as a whole (it did not load), a natural red when what it imports
// does not exist yet.
type naming struct {
	runner string // the runner and its options, for people and the tests
	fits   func(c junitCase) bool
	id     func(c junitCase) string
	file   bool
}

var namings = []naming{
	{runner: "pytest --junitxml, xunit1 (a .py file attribute): pytest's node id",
		fits: func(c junitCase) bool { return strings.HasSuffix(c.File, ".py") },
		id:   junitCase.nodeID},
	{runner: "a test file that did not load: vitest (classname and name the file), jest-junit with reportTestSuiteErrors (classname \"Test suite failed to run\"), node --test (name the file's absolute path)",
		fits: func(c junitCase) bool { return c.File != "" && c.Name == c.File },
		id:   func(c junitCase) string { return c.File },
		file: true},
	{runner: "vitest --reporter=junit: classname the file, name the describe blocks and title joined by \" > \"",
		fits: func(c junitCase) bool { return c.File != "" && c.Classname == c.File },
		id:   func(c junitCase) string { return c.File + "::" + c.Name }},
	{runner: "jest-junit's default templates: classname and name both \"{classname} {title}\", the describe blocks joined by ancestorSeparator (\" \"); a test outside any describe block starts with a space",
		fits: func(c junitCase) bool { return c.Classname == c.Name },
		id:   func(c junitCase) string { return prefixed(c.File, strings.TrimSpace(c.Name)) }},
	{runner: "node --test --test-reporter=junit: no file, a <testsuite> per describe block around the case, classname \"test\"",
		fits: func(c junitCase) bool { return c.File == "" && c.Classname == "test" },
		id: func(c junitCase) string {
			return strings.Join(append(c.suites[:len(c.suites):len(c.suites)], c.Name), " > ")
		}},
	{runner: "jest-junit with classname \"{classname}\" and title \"{title}\" apart, or any report with a file, a class and a name",
		fits: func(c junitCase) bool { return c.File != "" && c.Classname != "" },
		id:   func(c junitCase) string { return c.File + "::" + c.Classname + "::" + c.Name }},
	{runner: "gotestsum --junitfile (classname the package), cargo-nextest (the test binary), Maven: classname and name",
		fits: func(c junitCase) bool { return c.Classname != "" },
		id:   func(c junitCase) string { return c.Classname + "::" + c.Name }},
	{runner: "a file and a name, or a name alone",
		fits: func(junitCase) bool { return true },
		id:   func(c junitCase) string { return prefixed(c.File, c.Name) }},
}

// jestSuiteFailed is jest-junit's classname of a test file that did not load.
const jestSuiteFailed = "Test suite failed to run"

// prefixed is FILE::NAME, or NAME when the file is not known.
func prefixed(file, name string) string {
	if file == "" {
		return name
	}
	return file + "::" + name
}

// fileNamed is name as a path of a file of dir, slash-separated and relative,
// when it is one (relative, or absolute inside dir); else "".
func fileNamed(dir, name string) string {
	if dir == "" || !strings.ContainsAny(name, "/.") {
		return ""
	}
	if filepath.IsAbs(name) {
		rel, err := filepath.Rel(dir, name)
		if real, e := filepath.EvalSymlinks(dir); e == nil && (err != nil || !filepath.IsLocal(rel)) {
			rel, err = filepath.Rel(real, name) // the runner's working directory, as the kernel gives it
		}
		if err != nil {
			return ""
		}
		name = filepath.ToSlash(rel)
	}
	if !isFileIn(dir, name) {
		return ""
	}
	return name
}

// isFileIn reports whether name is a relative path to a regular file inside dir.
func isFileIn(dir, name string) bool {
	if name == "" || dir == "" || !strings.ContainsAny(name, "/.") || path.IsAbs(name) || !filepath.IsLocal(name) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
	return err == nil && fi.Mode().IsRegular()
}

var goTestName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:Test|Example|Fuzz|Benchmark)`)
})

// ShortName is the name a test is declared under in its source, from its id:
// the last part of a nested name ("mul > multiplies", "tests::mul"), without
// parameters ("test_p[2-x]", "testMul()") or a go subtest ("TestMul/case_1").
func ShortName(id string) string {
	n := id
	for _, sep := range []string{"::", " > ", " › "} {
		if i := strings.LastIndex(n, sep); i >= 0 {
			n = n[i+len(sep):]
		}
	}
	if i := strings.IndexAny(n, "[("); i > 0 {
		n = n[:i]
	}
	if i := strings.LastIndexByte(n, '.'); i >= 0 && goTestName().MatchString(n[i+1:]) {
		n = n[i+1:] // go's package.TestName
	}
	if i := strings.IndexByte(n, '/'); i > 0 {
		n = n[:i]
	}
	return strings.TrimSpace(n)
}
