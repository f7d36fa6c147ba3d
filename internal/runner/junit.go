package runner

import (
	"encoding/xml"
	"fmt"
	"os"
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
	var root junitSuite
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	var out []Test
	var walk func(s junitSuite)
	walk = func(s junitSuite) {
		for _, c := range s.Cases {
			out = append(out, c.test())
		}
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
