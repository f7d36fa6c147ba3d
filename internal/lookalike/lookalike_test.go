package lookalike

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		want Kind
	}{
		{"ok", Plain},
		{"\u043ek", Anywhere},                   // Cyrillic о among Latin
		{"p\u0430ssword", Anywhere},             // Cyrillic а
		{"\u0441\u043b\u043e\u0432o", Anywhere}, // a Latin o ending a Cyrillic word
		{"admi\u0307n", InCode},                 // a dot above on i
		{"cafe\u0301", InCode},                  // a decomposed é: French in a comment, not as a name
		{"\u0445", InCode},                      // Cyrillic х alone
		{"\u0440\u043e\u0440", InCode},          // рор
		{"\uff4fk", InCode},                     // fullwidth ｏ
		{"\ufb01le", InCode},                    // the ligature ﬁ
		{"\u03b1", InCode},                      // Greek α reads as a
		{"\u0394t", InCode},                     // Δt mixes Greek and Latin, no look-alike
		{"\u0441", InCode},                      // Russian с, a word of its own in a comment
		{"\u043f\u0440\u043e\u0432\u0435\u0440\u043a\u0430", Plain}, // проверка
		{"\u0445\u043e\u0440\u043e\u0448\u043e", InCode},            // хорошо reads as xopowo
		{"caf\u00e9", Plain},                      // precomposed é
		{"na\u00efve", Plain},                     // ï
		{"stra\u00dfe", Plain},                    // ß
		{"\u65e5\u672c\u8a9e", Plain},             // 日本語
		{"\uff2f\uff2b\u30dc\u30bf\u30f3", Plain}, // ＯＫボタン: Latin with Katakana
		{"\u30c6\u30b9\u30c8test", Plain},         // テストtest
		{"ok\ufe00", Plain},                       // a selector: INVISIBLE's, not this
		{"10\u03bcs", InCode},                     // μs mixes Greek and Latin
		{"x_\u0301", Plain},                       // a mark on _: INVISIBLE's (no base)
	}
	for _, tt := range tests {
		if got := Classify(tt.name); got != tt.want {
			t.Errorf("Classify(%+q) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestExplain(t *testing.T) {
	tests := []struct{ name, want string }{
		{"\u043ek", `\u{043e} is U+043E CYRILLIC SMALL LETTER O, not o`},
		{"admi\u0307n", `\u{0307} is U+0307, a combining mark on the i before it`},
		{"\u0394t", "it mixes scripts: Latin, Greek"},
	}
	for _, tt := range tests {
		if got := Explain(tt.name); got != tt.want {
			t.Errorf("Explain(%+q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// scan reads text as the added lines of a file at path, all of it, and
// resolves what waits.
func scan(path, text string) *File {
	f := &File{}
	for i, l := range strings.Split(text, "\n") {
		f.Scan([]byte(l), int64(i+1))
	}
	f.Resolve(path, []byte(text), true)
	return f
}

// Real-looking code with Russian comments and docstrings, French strings
// and Japanese text has no name that reads as another; the same code with
// one such name has exactly that one.
func TestNaturalTextIsNotFlagged(t *testing.T) {
	python := `"""Модуль проверки токенов.

Проверка с токеном и у нас есть о чём подумать: а если токен пуст?
"""
import hmac

MESSAGES = {
    "fr": "Le jeton n'est pas valide : réessayez à côté",
    "fr_nfd": "Le jeton a été refusé",
    "ru": 'Токен с ошибкой, у нас нет о нём данных',
    "ja": "トークンが無効です（ＯＫボタンを押してください）",
}


def check_token(token, secret):  # с постоянным временем
    # сравнение с секретом: о времени не беспокоимся
    ok = hmac.compare_digest(token, secret)
    note = f"результат с {ok!r} и {len(token):>4} у"
    return ok  # а вот и результат
`
	if f := scan("src/auth.py", python); f.Count != 0 {
		t.Errorf("Python with Russian comments: %d names flagged: %q", f.Count, f.Names)
	}
	attack := strings.Replace(python, "    return ok  #", "    \u0445 = ok\n    return \u0445  #", 1)
	if f := scan("src/auth.py", attack); f.Count != 2 || len(f.Names) != 1 || f.Names[0] != "\u0445" {
		t.Errorf("Python with Cyrillic х as a name: %d flagged: %q, want 2 uses of х", f.Count, f.Names)
	}
	mark := strings.Replace(python, "ok = hmac", "admi\u0307n = False\n    ok = hmac", 1)
	if f := scan("src/auth.py", mark); f.Count != 1 {
		t.Errorf("Python with a dot above in a name: %d flagged: %q", f.Count, f.Names)
	}
	mixedInString := strings.Replace(python, `"fr": "Le jeton`, `"fr": "p`+"\u0430"+`ssword Le jeton`, 1)
	if f := scan("src/auth.py", mixedInString); f.Count != 1 {
		t.Errorf("a mixed name in a string: %d flagged, want 1", f.Count)
	}

	goSrc := "package auth\n\n// Проверка с токеном: о времени.\n/* у нас\n   а также с */\nfunc Check(t string) bool {\n\tmsg := \"с ошибкой\"\n\tr := 'с'\n\traw := `у\nо`\n\treturn t != msg && r != 0 && raw != \"\"\n}\n"
	if f := scan("auth/auth.go", goSrc); f.Count != 0 {
		t.Errorf("Go with Russian comments: %d flagged: %q", f.Count, f.Names)
	}
	goAttack := strings.Replace(goSrc, "\treturn t", "\t\u0445 := 1\n\t_ = \u0445\n\treturn t", 1)
	if f := scan("auth/auth.go", goAttack); f.Count != 2 {
		t.Errorf("Go with Cyrillic х: %d flagged: %q, want 2", f.Count, f.Names)
	}

	js := "// проверка с токеном\nconst msg = `у нас ${user.name} и о нём`;\nconst s = 'с ошибкой';\n"
	if f := scan("web/app.js", js); f.Count != 0 {
		t.Errorf("JavaScript with Russian text: %d flagged: %q", f.Count, f.Names)
	}
	if f := scan("web/app.js", js+"const \u0445 = `${\u0445}`;\n"); f.Count != 2 {
		t.Errorf("JavaScript with х in code and in a template's code: %d flagged, want 2", f.Count)
	}

	prose := "# Проверка\n\nУ нас с вами о чём-то: а вот.\n"
	if f := scan("docs/README.ru.md", prose); f.Count != 0 {
		t.Errorf("Russian prose: %d flagged: %q", f.Count, f.Names)
	}
}

// A Rust lifetime is not a character literal: the code after it is code.
func TestRustLifetime(t *testing.T) {
	src := "fn f<'a>(x: &'a str) -> &'a str { let \u0445 = x; \u0445 }\nconst C: char = 'с';\n"
	if f := scan("src/lib.rs", src); f.Count != 2 {
		t.Errorf("Rust: %d flagged: %q, want the two х", f.Count, f.Names)
	}
}

// A name that waits for the text is counted when the text is not known.
func TestResolveWithoutText(t *testing.T) {
	f := &File{}
	f.Scan([]byte("# с"), 1)
	f.Resolve("a.py", nil, false)
	if f.Count != 1 {
		t.Errorf("count %d, want 1", f.Count)
	}
}

// An ASCII line leaves nothing behind.
func TestScanASCII(t *testing.T) {
	f := &File{}
	f.Scan([]byte("    return ok  # a comment"), 1)
	if f.Count != 0 || f.Pending() {
		t.Errorf("%+v for an ASCII line", f)
	}
}

func TestInPath(t *testing.T) {
	if got := InPath("src/\u0430uth.py"); len(got) != 1 || got[0] != "\u0430uth" {
		t.Errorf("InPath: %q", got)
	}
	for _, p := range []string{"src/auth.py", "docs/\u043e-\u043f\u0440\u043e\u0435\u043a\u0442\u0435.md", "caf\u00e9/menu.py"} {
		if got := InPath(p); got != nil {
			t.Errorf("InPath(%s) = %q", p, got)
		}
	}
}
