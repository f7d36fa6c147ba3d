package term

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/exitcode"
)

func TestColorEnabled(t *testing.T) {
	var buf bytes.Buffer // not a terminal
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name string
		flag string
		env  func(string) string
		want bool
	}{
		{"auto, not a tty", "auto", env(), false},
		{"always wins over NO_COLOR", "always", env("NO_COLOR", "1"), true},
		{"never wins over CLICOLOR_FORCE", "never", env("CLICOLOR_FORCE", "1"), false},
		{"NO_COLOR before CLICOLOR_FORCE", "auto", env("NO_COLOR", "1", "CLICOLOR_FORCE", "1"), false},
		{"TERM=dumb before CLICOLOR_FORCE", "auto", env("TERM", "dumb", "CLICOLOR_FORCE", "1"), false},
		{"CLICOLOR_FORCE forces", "auto", env("CLICOLOR_FORCE", "1"), true},
		{"CLICOLOR_FORCE=0 does not", "auto", env("CLICOLOR_FORCE", "0"), false},
		{"empty NO_COLOR is unset", "auto", env("NO_COLOR", "", "CLICOLOR_FORCE", "1"), true},
	}
	for _, tt := range tests {
		if got := ColorEnabled(tt.flag, &buf, tt.env); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"src/a.py": "src/a.py", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$(x);`y`": "'$(x);`y`'", "caf\u00e9": "'caf\u00e9'",
	}
	for in, want := range tests {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPath(t *testing.T) {
	tests := map[string]string{
		"plain.txt":      "plain.txt",
		"sp ace.txt":     "sp ace.txt",
		"日本語.txt":        "日本語.txt",
		"new\nline":      `"new\nline"`,
		"tab\tx":         `"tab\tx"`,
		`q"uote`:         `"q\"uote"`,
		`back\slash`:     `"back\\slash"`,
		"caf\xe9":        `"caf\351"`,
		"esc\x1b[31m":    `"esc\033[31m"`,
		"rtl\u202eexe":   `"rtl\u{202e}exe"`,
		"zero\u200bwide": `"zero\u{200b}wide"`,
		"c1\u009bx":      `"c1\u{009b}x"`,
		"line\u2028sep":  `"line\u{2028}sep"`,
		"para\u2029sep":  `"para\u{2029}sep"`,
	}
	for in, want := range tests {
		if got := Path(in); got != want {
			t.Errorf("Path(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"\tplain", 0, "\tplain"},
		{"a\x1b[2Jb\r", 0, "a^[[2Jb^M"},
		{"del\x7f", 0, "del^?"},
		{"bad\xff", 0, `bad\x{ff}`},
		{"bidi\u202e", 0, `bidi\u{202e}`},
		{"abcdef", 3, "abc … (3 more bytes)"},
		// a CR in the middle would send the cursor back over what precedes it
		{"ok = check(token)\rok = True   ", 0, "ok = check(token)^Mok = True   "},
		{"x = 1 \\", 0, `x = 1 \`}, // a backslash at the end is shown as it is
	}
	for _, tt := range tests {
		if got := Line(tt.in, tt.max); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrintError(t *testing.T) {
	var buf bytes.Buffer
	PrintError(&buf, "git-diffgate", exitcode.New(3, "a human must approve this change").
		WithDetail("Diff review gate cannot be bypassed. Manual approval required.").WithHint("run in a terminal: git diffgate"))
	want := "git-diffgate: error: a human must approve this change\nDiff review gate cannot be bypassed. Manual approval required.\nhint: run in a terminal: git diffgate\n"
	if buf.String() != want {
		t.Errorf("got %q", buf.String())
	}
	buf.Reset()
	PrintError(&buf, "git-tdd", exitcode.Silent(1))
	PrintError(&buf, "git-tdd", nil)
	if buf.Len() != 0 {
		t.Errorf("silent errors printed %q", buf.String())
	}
	PrintError(&buf, "git-tdd", errors.New("plain"))
	if !strings.HasPrefix(buf.String(), "git-tdd: error: plain\n") {
		t.Errorf("got %q", buf.String())
	}
	// a path an agent chose cannot clear the screen or recolour the hint
	buf.Reset()
	PrintError(&buf, "git-tdd", exitcode.New(2, "x\x1b[2J.py: outside\nsecond\rline").WithDetail("d\x1b[31m").WithHint("h\x07"))
	want = "git-tdd: error: x^[[2J.py: outside\nsecond^Mline\nd^[[31m\nhint: h^G\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	// a value quoted with Path is shown as Path wrote it, its escapes not
	// doubled; an invisible character slipped in unquoted is still escaped
	buf.Reset()
	PrintError(&buf, "git-tdd", exitcode.New(1, "id %s: refused", Path("t[a\u2028b]")).WithDetail("ok\ufe00"))
	want = "git-tdd: error: id \"t[a\\u{2028}b]\": refused\nok\\u{fe00}\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestMatch(t *testing.T) {
	choices := []Choice{{Word: "APPROVE"}, {Word: "REJECT"}, {Word: "append", Aliases: []string{"a"}}}
	tests := map[string]string{"APPROVE": "APPROVE", "approve": "APPROVE", "ApPrOvE": "APPROVE", "a": "append",
		"approved": "", "yes": "", "": "", "APPROVE REJECT": ""}
	for in, want := range tests {
		got, ok := match(in, choices)
		if got != want || ok != (want != "") {
			t.Errorf("match(%q) = %q %v", in, got, ok)
		}
	}
}

func TestNearest(t *testing.T) {
	words := []string{"review", "report", "install", "uninstall", "status", "verify"}
	for word, want := range map[string]string{
		"revew": "review", "reprot": "report", "instal": "install", "stauts": "status",
		"review": "review", "frobnicate": "", "": "",
	} {
		if got := Nearest(word, words); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
}

// PathNames escapes the names it is told to, and quotes the path for them.
func TestPathNames(t *testing.T) {
	pick := func(n string) bool { return n == "\u0430uth" || n == "x\u0435" }
	for in, want := range map[string]string{
		"src/auth.py":          "src/auth.py",
		"src/\u0430uth.py":     `"src/\u{0430}uth.py"`,
		"docs/\u043e\u0442.md": "docs/\u043e\u0442.md", // not picked: as it is
		"a\\b/x\u0435":         `"a\\b/x\u{0435}"`,
		"\u202e/\u0430uth.py":  `"\u{202e}/\u{0430}uth.py"`,
	} {
		if got := PathNames(in, pick); got != want {
			t.Errorf("PathNames(%+q) = %s, want %s", in, got, want)
		}
	}
}
