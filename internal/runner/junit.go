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
)

type junitSuite struct {
	Suites []junitSuite `xml:"testsuite"`
	Cases  []junitCase  `xml:"testcase"`
}

type junitCase struct {
	Classname string      `xml:"classname,attr"`
	Name      string      `xml:"name,attr"`
	File      string      `xml:"file,attr"`
	Failure   *junitIssue `xml:"failure"`
	Error     *junitIssue `xml:"error"`
	Skipped   *junitIssue `xml:"skipped"`
}

type junitIssue struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func readJUnit(path string) ([]Test, error) {
	data, err := os.ReadFile(path)
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
	var walk func(s junitSuite)
	walk = func(s junitSuite) {
		out = append(out, s.Cases...)
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	walk(root)
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
	m := strings.TrimSpace(i.Text)
	if m == "" {
		m = i.Message
	}
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
	fi, err := os.Stat(report)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		data, err := os.ReadFile(report)
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
		data, err := os.ReadFile(f)
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
// report alone, the same in every run: pytest's node id when it carries a .py
// file; else FILE::NAME, where FILE is the file attribute or a classname that
// names a file of dir (vitest writes the test file there); else
// CLASSNAME::NAME, or NAME.
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
		t := c.test()
		switch {
		case strings.HasSuffix(c.File, ".py"):
		case c.File != "":
			t.ID, t.Collection = c.File+"::"+c.Name, false
		case c.Classname != "":
			t.ID = c.Classname + "::" + c.Name
		default:
			t.ID = c.Name
		}
		out[i] = t
	}
	return out, nil
}

// isFileIn reports whether name is a relative path to a regular file inside dir.
func isFileIn(dir, name string) bool {
	if name == "" || dir == "" || !strings.ContainsAny(name, "/.") || path.IsAbs(name) || !filepath.IsLocal(name) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
	return err == nil && fi.Mode().IsRegular()
}

var goTestName = regexp.MustCompile(`^(?:Test|Example|Fuzz|Benchmark)`)

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
	if i := strings.LastIndexByte(n, '.'); i >= 0 && goTestName.MatchString(n[i+1:]) {
		n = n[i+1:] // go's package.TestName
	}
	if i := strings.IndexByte(n, '/'); i > 0 {
		n = n[:i]
	}
	return strings.TrimSpace(n)
}
