package edit

import (
	"errors"
	"strings"
	"testing"
)

// seed 003 T110: an answer cut off inside a fence is truncated, never applied.
func TestSplitAnswer(t *testing.T) {
	answer := "Here is the change.\n\n### FILE: tests/test_mul.py\n```python\nimport calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n```\n\n" +
		"### FILE: README.md\n````markdown\n# calc\n```\n### FILE: not/a/section\n```\n````\n\n" +
		"### FILE: calc/__init__.py\n### CHANGE 1: add mul\nFIND:\n```\ndef add(a, b):\n```\nREPLACE WITH:\n```\ndef mul(a, b):\n    return a * b\n\n\ndef add(a, b):\n```\n"
	got, err := SplitAnswer(answer)
	if err != nil || len(got) != 3 {
		t.Fatalf("%+v %v", got, err)
	}
	if got[0].Path != "tests/test_mul.py" || !strings.HasPrefix(string(got[0].Whole), "import calc\n") || got[0].Edits != "" {
		t.Errorf("whole file: %+v", got[0])
	}
	if got[1].Path != "README.md" || string(got[1].Whole) != "# calc\n```\n### FILE: not/a/section\n```\n" {
		t.Errorf("a FILE line inside a fence: %q", got[1].Whole)
	}
	if got[2].Path != "calc/__init__.py" || got[2].Whole != nil || !strings.Contains(got[2].Edits, "FIND:") {
		t.Errorf("edit blocks: %+v", got[2])
	}
	for name, in := range map[string]string{
		"cut inside a whole file": "### FILE: a.py\n```python\ndef f():\n",
		"cut inside a FIND":       "### FILE: a.py\nFIND:\n```\nx = 1\n",
		"cut before REPLACE":      "### FILE: a.py\nFIND:\n```\nx = 1\n```\n",
	} {
		_, err := SplitAnswer(in)
		var pe *ParseError
		if !errors.As(err, &pe) || !pe.Truncated {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, in := range map[string]string{
		"no section":      "I could not do it.",
		"no fence at all": "### FILE: a.py\nx = 1\n",
	} {
		_, err := SplitAnswer(in)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Truncated {
			t.Errorf("%s: %v", name, err)
		}
	}
}
