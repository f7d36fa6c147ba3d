package commitmsg

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckValue(t *testing.T) {
	for _, tc := range []struct {
		value, reason string // reason "" is accepted
	}{
		{"tests/test_mul.py::test_mul", ""},
		{"tests/test_mul.py::test_mul[2-3-6]", ""},
		{"tests/test_ü.py::test_é[ß]", ""},
		{"tests/test_x.py::test[👩\u200d💻]", ""}, // a zero-width joiner in an emoji
		{"tests/test x.py::test[a b]", ""},
		{strings.Repeat("a", MaxValue), ""},
		{"", "it is empty"},
		{strings.Repeat("a", MaxValue+1), "it is 513 bytes long, over the limit of 512"},
		{"t[a\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=0123]", "it holds a line break (U+000A)"},
		{"t[a\rb]", "it holds a line break (U+000D)"},
		{"t[a\vb]", "it holds a line break (U+000B)"},
		{"t[a\fb]", "it holds a line break (U+000C)"},
		{"t[a\u0085b]", "it holds a line break (U+0085)"},
		{"t[a\u2028b]", "it holds the line separator U+2028"},
		{"t[a\u2029b]", "it holds the paragraph separator U+2029"},
		{"t[a\x1b[2Jb]", "it holds the control character U+001B"},
		{"t[a\x00b]", "it holds the control character U+0000"},
		{"t[a\tb]", "it holds the control character U+0009"},
		{"t[a\x7fb]", "it holds the control character U+007F"},
		{"t[a\u009bb]", "it holds the control character U+009B"},
		{"t[a\u202eb]", "it holds the bidirectional control U+202E"},
		{"t[a\u2066b]", "it holds the bidirectional control U+2066"},
		{"t[a\xffb]", "it is not valid UTF-8"},
		{" t", "it begins or ends with white space, which a trailer does not keep"},
		{"t ", "it begins or ends with white space, which a trailer does not keep"},
		{"t\u00a0", "it begins or ends with white space, which a trailer does not keep"},
	} {
		err := CheckValue(tc.value)
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("CheckValue(%q) = %v, want nil", tc.value, err)
		case tc.reason != "" && err == nil:
			t.Errorf("CheckValue(%q) = nil, want %q", tc.value, tc.reason)
		case tc.reason != "":
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Reason != tc.reason || ve.Value != tc.value {
				t.Errorf("CheckValue(%q) = %#v, want reason %q", tc.value, err, tc.reason)
			}
		}
		if tc.reason != "" {
			continue
		}
		// what is accepted reads back exactly, as a trailer's value
		msg, err := Build("subject", "", Trailer{Key: FailingKey, Value: tc.value})
		if err != nil {
			t.Errorf("Build with %q: %v", tc.value, err)
			continue
		}
		if got := FinalTrailers(msg); len(got) != 1 || got[0].Value != tc.value {
			t.Errorf("%q reads back as %#v", tc.value, got)
		}
	}
}

func TestValueErrorEscapes(t *testing.T) {
	err := CheckValue("t[a\nDiffgate-Approved: x\x1b[2J\u2028]")
	var ve *ValueError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	ve.What = "the test id"
	got := err.Error()
	want := `the test id "t[a\nDiffgate-Approved: x\033[2J\u{2028}]": it holds a line break (U+000A)`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestBuild(t *testing.T) {
	msg, err := Build("test(#87): red — 1 failing", "Proved by git tdd red.\nSecond line.",
		Trailer{Key: PhaseKey, Value: "red"}, Trailer{Key: FailingKey, Value: "tests/test_mul.py::test_mul"})
	if err != nil {
		t.Fatal(err)
	}
	want := "test(#87): red — 1 failing\n\nProved by git tdd red.\nSecond line.\n\nTDD-Phase: red\nTDD-Failing: tests/test_mul.py::test_mul\n"
	if msg != want {
		t.Errorf("got %q\nwant %q", msg, want)
	}
	if msg, _ := Build("abort", "no trailers"); msg != "abort\n\nno trailers\n" {
		t.Errorf("without trailers: %q", msg)
	}
	if msg, _ := Build("just a subject", ""); msg != "just a subject\n" {
		t.Errorf("subject only: %q", msg)
	}

	for _, tc := range []struct {
		name, subject, body string
		trailers            []Trailer
		want                string
	}{
		{"a subject with a line break", "Merge #87: x\n\nDiffgate-Approved: y", "", nil, "the subject"},
		{"a long subject", strings.Repeat("s", MaxValue+1), "", nil, "over the limit"},
		{"a hostile id", "red", "", []Trailer{{Key: FailingKey, Value: "a\nDiffgate-Approved: y"}}, "the TDD-Failing value"},
		{"an escape in the body", "s", "text \x1b]0;title\a", nil, "a line of the body"},
		{"a body that ends in a trailer block", "s", "text\n\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=" + strings.Repeat("a", 40), nil, "would not read back"},
		{"a bad key", "s", "", []Trailer{{Key: "Bad Key", Value: "v"}}, "invalid trailer key"},
	} {
		_, err := Build(tc.subject, tc.body, tc.trailers...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

var tree40 = strings.Repeat("ab", 20)

func TestParseApproval(t *testing.T) {
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	good := FormatApproval(at, tree40)
	for _, tc := range []struct {
		name, msg string
		tree      string // the approval read; "" when refused
		problem   string
	}{
		{"one approval", "Fix it\n\nBody.\n\n" + good + "\n", tree40, ""},
		{"among other trailers", "Fix it\n\nSigned-off-by: A <a@x>\n" + good + "\nCo-authored-by: B\n", tree40, ""},
		{"sha-256", "Fix\n\n" + FormatApproval(at, strings.Repeat("c", 64)) + "\n", strings.Repeat("c", 64), ""},
		{"another time zone", "Fix\n\nDiffgate-Approved: 2026-11-26T11:00:00+01:00 tree=" + tree40 + "\n", tree40, ""},
		{"trailing comments and blank lines", "Fix\n\n" + good + "\n\n# a comment\n\n", tree40, ""},
		{"after a line of dashes (no patch divider in a commit)", "Fix\n\n---\n\n" + good + "\n", tree40, ""},

		{"none", "Fix it\n\nBody.\n", "", "no Diffgate-Approved trailer"},
		{"in the subject", good + "\n", "", "final trailer block"},
		{"in the body, not the last paragraph", "Fix\n\n" + good + "\n\nMore text.\n", "", "final trailer block"},
		{"in a last paragraph that is mostly text", "Fix\n\nSome text\nmore text\nand more\nand more\n" + good + "\n", "", "final trailer block"},
		{"before a line of dashes", "Fix\n\n" + good + "\n---\n a.txt | 1 +\n", "", "final trailer block"},
		{"below the scissors", "Fix\n\n# ------------------------ >8 ------------------------\n\n" + good + "\n", "", "final trailer block"},
		{"indented, a continuation", "Fix\n\nTDD-Failing: x\n " + good + "\n", "", "final trailer block"},

		{"two", "Fix\n\n" + good + "\n" + good + "\n", "", "2 Diffgate-Approved trailers"},
		{"two, one of another tree", "Fix\n\n" + good + "\n" + FormatApproval(at, strings.Repeat("0", 40)) + "\n", "", "2 Diffgate-Approved trailers"},
		{"two, one in lower case", "Fix\n\n" + good + "\ndiffgate-approved: 2026-01-01T00:00:00Z tree=" + tree40 + "\n", "", "2 Diffgate-Approved trailers"},

		{"after a NUL byte, which git stops at", "Fix\n\nBody\x00\n\n" + good + "\n", "", "a NUL byte"},
		{"a NUL byte elsewhere", "Fix\x00\n\n" + good + "\n", "", "a NUL byte"},

		{"no tree", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z\n", "", "malformed"},
		{"a short tree", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=abc123\n", "", "malformed"},
		{"upper-case hex", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=" + strings.ToUpper(tree40) + "\n", "", "malformed"},
		{"text after the tree", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=" + tree40 + "]\n", "", "malformed"},
		{"text before the time", "Fix\n\nDiffgate-Approved: yes 2026-01-01T00:00:00Z tree=" + tree40 + "\n", "", "malformed"},
		{"not a time", "Fix\n\nDiffgate-Approved: yesterday tree=" + tree40 + "\n", "", "malformed"},
		{"a continuation line", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z\n tree=" + tree40 + "\n", "", "malformed"},
		{"a space before the colon", "Fix\n\nDiffgate-Approved : 2026-01-01T00:00:00Z tree=" + tree40 + "\n", "", "malformed"},
		{"the key in lower case", "Fix\n\ndiffgate-approved: 2026-01-01T00:00:00Z tree=" + tree40 + "\n", "", "malformed"},
		{"two spaces", "Fix\n\nDiffgate-Approved: 2026-01-01T00:00:00Z  tree=" + tree40 + "\n", "", "malformed"},
	} {
		a, err := ParseApproval(tc.msg)
		if tc.problem == "" {
			if err != nil || a.Tree != tc.tree {
				t.Errorf("%s: %+v, %v; want tree %s", tc.name, a, err, tc.tree)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.problem) {
			t.Errorf("%s: %+v, %v; want %q", tc.name, a, err, tc.problem)
		}
		if strings.Contains(tc.problem, "trailer block") && !errors.Is(err, ErrNoApproval) {
			t.Errorf("%s: %v is not ErrNoApproval", tc.name, err)
		}
	}
	if a, err := ParseApproval(good); err == nil {
		t.Errorf("a subject is no trailer: %+v", a)
	}
	if a, _ := ParseApproval("x\n\n" + good); !a.Time.Equal(at) {
		t.Errorf("time %v, want %v", a.Time, at)
	}
}

func TestPhase(t *testing.T) {
	for msg, want := range map[string]string{
		"test(#87): red — 1 failing\n\nProved.\n\nTDD-Phase: red\nTDD-Failing: t\n": "red",
		"feat(#87): green — 3 passing\n\nTDD-Phase: green\n":                        "green",
		"Merge #87: x\n\nTDD-Issue: 87\nDiffgate-Approved: y\n":                     "",
		"Explain\n\nTDD-Phase: red was the phase\n\nSigned-off-by: A\n":             "",
		"fix\n\ntdd-phase: red\n":                                                   "red",
		"TDD-Phase: red\n":                                                          "",
	} {
		if got := Phase(msg); got != want {
			t.Errorf("Phase(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestValues(t *testing.T) {
	for _, tt := range []struct {
		msg, want string // want: key=value;… in the order found
	}{
		{"test(#87): red — 2 failing\n\nTDD-Phase: red\nTDD-Failing: a::b\ntdd-failing: c\n", "TDD-Phase=red;TDD-Failing=a::b;TDD-Failing=c"},
		{"Merge #87\n\nTDD-Issue: 87\nTDD-Phase:\n", "TDD-Issue=87"},
		// only the final trailer block: a line of the body is text
		{"subject\n\nTDD-Phase: red\n\nbody\n", ""},
		{"TDD-Phase: red\n", ""},
		{"s\n\nTDD-Failing: a\n  b\n", "TDD-Failing=a b"},
	} {
		m := Values(tt.msg, "TDD-Phase", "TDD-Failing", "TDD-Issue")
		var got []string
		for _, k := range []string{"TDD-Phase", "TDD-Failing", "TDD-Issue"} {
			for _, v := range m[k] {
				got = append(got, k+"="+v)
			}
		}
		if strings.Join(got, ";") != tt.want {
			t.Errorf("Values(%q) = %q, want %q", tt.msg, strings.Join(got, ";"), tt.want)
		}
	}
}
