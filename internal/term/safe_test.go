package term

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// Each class of character a terminal shows as nothing or as something else,
// with the code points issue 20 names: every one is escaped by Line and Path
// and counted by CountInvisible, alone, inside a word and as a whole word.
func TestInvisibleClasses(t *testing.T) {
	classes := []struct {
		name  string
		runes []rune
	}{
		{"variation selectors", []rune{0xfe00, 0xfe01, 0xfe0e, 0xfe0f, 0xe0100, 0xe0101, 0xe01ef}},
		{"combining grapheme joiner", []rune{0x034f}},
		{"Hangul fillers", []rune{0x115f, 0x1160, 0x3164, 0xffa0}},
		{"zero-width", []rune{0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e}},
		{"bidi", []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}},
		{"tags", []rune{0xe0000, 0xe0001, 0xe0020, 0xe0041, 0xe007e, 0xe007f}},
		{"other format (Cf)", []rune{0x00ad, 0x2061, 0x2062, 0x2063, 0x2064, 0x206a, 0x206f, 0xfff9, 0xfffb, 0x110bd, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a}},
		{"other default-ignorable", []rune{0x17b4, 0x17b5, 0x180b, 0x180c, 0x180d, 0x180f, 0x2065, 0xfff0, 0xfff8, 0xe0080, 0xe0fff}},
		{"non-ASCII whitespace", []rune{0x00a0, 0x1680, 0x2000, 0x2007, 0x200a, 0x202f, 0x205f, 0x3000, 0x2028, 0x2029, 0x0085}},
		{"C1 controls", []rune{0x0080, 0x009b, 0x009f}},
		{"blank Braille", []rune{0x2800}},
		{"private use", []rune{0xe000, 0xf8ff, 0xf0000, 0x10fffd}},
		{"unassigned and noncharacters", []rune{0x0378, 0xfdd0, 0xfffe, 0xffff, 0x1fffe, 0x2fffe}},
	}
	for _, c := range classes {
		for _, r := range c.runes {
			esc := fmt.Sprintf(`\u{%04x}`, r)
			if !Invisible(r) {
				t.Errorf("%s: Invisible(%U) = false", c.name, r)
			}
			for _, in := range []string{string(r), "ok" + string(r) + " = True", "x = " + string(r)} {
				want := strings.ReplaceAll(in, string(r), esc)
				if got := Line(in, 0); got != want {
					t.Errorf("%s: Line(%+q) = %q, want %q", c.name, in, got, want)
				}
				if got := CountInvisible([]byte(in)); got != 1 {
					t.Errorf("%s: CountInvisible(%+q) = %d, want 1", c.name, in, got)
				}
			}
			if got := Path("a" + string(r) + ".py"); got != `"a`+esc+`.py"` {
				t.Errorf("%s: Path with %U = %s", c.name, r, got)
			}
		}
	}
}

// A combining mark shows on the letter or digit before it in the same word;
// without one it is drawn on a space, a quote, or nothing: escaped.
func TestCombiningMarks(t *testing.T) {
	tests := []struct {
		in, want string
		n        int
	}{
		{"cafe\u0301", "cafe\u0301", 0},                           // on a letter
		{"x\u0301\u0323", "x\u0301\u0323", 0},                     // two on one letter
		{"1\u20e3", "1\u20e3", 0},                                 // Me on a digit
		{"\u0915\u093e\u0901", "\u0915\u093e\u0901", 0},           // Devanagari: Mc then Mn
		{"\u0301x", `\u{0301}x`, 1},                               // at the start
		{"a \u0301", `a \u{0301}`, 1},                             // after a space
		{"'\u0301'", `'\u{0301}'`, 1},                             // on a quote
		{"_\u0301", `_\u{0301}`, 1},                               // on punctuation
		{"\u3164\u0301", `\u{3164}\u{0301}`, 2},                   // on a filler, itself hidden
		{"ok\ufe00\u0301", `ok\u{fe00}\u{0301}`, 2},               // after a selector, no base
		{"e\u034f\u0301", `e\u{034f}\u{0301}`, 2},                 // the joiner is always escaped
		{"\u00e9t\u00e9 \u00fcber", "\u00e9t\u00e9 \u00fcber", 0}, // precomposed: plain letters
	}
	for _, tt := range tests {
		if got := Line(tt.in, 0); got != tt.want {
			t.Errorf("Line(%+q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := CountInvisible([]byte(tt.in)); got != tt.n {
			t.Errorf("CountInvisible(%+q) = %d, want %d", tt.in, got, tt.n)
		}
	}
}

// What a terminal shows as itself stays as it is.
func TestVisible(t *testing.T) {
	for _, s := range []string{"plain ascii", "\tindented", "日本語", "café", "Ωμέγα", "emoji 😀", "¥100", "→ ≤ ∀", "한국어", "ｆｕｌｌ"} {
		if got := Line(s, 0); got != s {
			t.Errorf("Line(%q) = %q", s, got)
		}
		if n := CountInvisible([]byte(s)); n != 0 {
			t.Errorf("CountInvisible(%q) = %d", s, n)
		}
	}
}

// Invisible is exactly its definition, for every code point: C1, Cf, Zs but
// the space, Zl, Zp, Co, Cs, unassigned, Other_Default_Ignorable_Code_Point,
// Variation_Selector, and the blank Braille pattern. Unicode's
// Default_Ignorable_Code_Point is within it.
func TestInvisibleDefinition(t *testing.T) {
	assigned := []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs} // unicode.C has the unassigned too
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		want := r < 0xa0 || r == 0x2800 || !unicode.In(r, assigned...) ||
			unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs,
				unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
		if got := Invisible(r); got != want {
			t.Fatalf("Invisible(%U) = %v, want %v", r, got, want)
		}
	}
}

// Line's escapes are unambiguous: the text \u{fe00} never looks like an
// escaped U+FE00, nor a backslash before one like either.
func TestLineBackslashes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a\nb`, `a\nb`},               // code as it is
		{`"\\n"`, `"\\n"`},             // even runs before plain text too
		{`\x41 \u0041`, `\x41 \u0041`}, // escapes of other languages
		{`\u{fe00}`, `\\u{fe00}`},      // our escape's text: doubled
		{`\x{ff}`, `\\x{ff}`},          //
		{`\\u{fe00}`, `\\\\u{fe00}`},   // an even run stays even
		{"\\\ufe00", `\\\u{fe00}`},     // a backslash, then U+FE00
		{"\\\\\ufe00", `\\\\\u{fe00}`}, // two, then U+FE00
		{"\\\xff", `\\\x{ff}`},         // a backslash, then a bad byte
		{"\\\u0301", `\\\u{0301}`},     // a mark after a backslash has no base
		{"\\é", `\é`},                  // a visible character is not an escape
		{"end\\", `end\`},              //
	}
	for _, tt := range tests {
		if got := Line(tt.in, 0); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if Line(`\u{fe00}`, 0) == Line("\ufe00", 0) || Line("\\\ufe00", 0) == Line(`\u{fe00}`, 0) {
		t.Error("two texts render the same")
	}
}

// Folding loses nothing: the pieces joined are the line, each fits the width
// (the first from column 0, the others after the one-column mark), and no
// escape, caret pair or mark on its letter is split.
func TestFold(t *testing.T) {
	long := strings.Repeat("PRIMES = [2, 3, 5, 7, 11, 13], ", 150) + "; __import__('os').system('x')"
	tests := []struct {
		name string
		in   string
		cols int
	}{
		{"short", "+x = 1", 80},
		{"exactly the width", strings.Repeat("a", 80), 80},
		{"one more", strings.Repeat("a", 81), 80},
		{"a 4,600-byte line", "+" + long, 80},
		{"escapes", strings.Repeat(`ok\u{fe00} \x{ff} ^[[2J `, 40), 17},
		{"tabs", strings.Repeat("\tx = 1;", 50), 40},
		{"wide", strings.Repeat("日本語のテキスト", 30), 21},
		{"marks", strings.Repeat("cafe\u0301 x\u0301\u0323 ", 40), 10},
		{"narrow", "abcdefghij", 2},
		{"escape wider than the width", `\u{e0100}\u{e0100}`, 4},
		{"empty", "", 80},
	}
	for _, tt := range tests {
		pieces := Fold(tt.in, tt.cols, 0)
		if got := strings.Join(pieces, ""); got != tt.in {
			t.Errorf("%s: joined pieces differ from the line:\n%q\n%q", tt.name, got, tt.in)
		}
		for i, p := range pieces {
			if p == "" && len(pieces) > 1 {
				t.Errorf("%s: piece %d is empty", tt.name, i)
			}
			start := 0
			if i > 0 {
				start = 1
			}
			if w := columns(p, start); w > tt.cols && !oneUnit(p, start) {
				t.Errorf("%s: piece %d is %d columns wide, over %d: %q", tt.name, i, w, tt.cols, p)
			}
			if i > 0 && tt.name != "a 4,600-byte line" && (strings.HasPrefix(p, "u{") || strings.HasPrefix(p, "[") || strings.HasPrefix(p, "\u0301") || strings.HasPrefix(p, "\u0323")) {
				t.Errorf("%s: piece %d starts inside a unit: %q", tt.name, i, p)
			}
		}
	}
	if n := len(Fold("+"+long, 80, 0)); n != (len(long)+1+78)/79 {
		t.Errorf("the 4,600-byte line folds into %d pieces", n)
	}
}

// Printed after a mark of 3 columns, a line with tabs is folded as the
// screen draws it: tab stops are the screen's, not the text's.
func TestFoldIndent(t *testing.T) {
	line := strings.Repeat("abcde\t", 14) + "os.system('payload')"
	for _, indent := range []int{0, 1, 3, 5} {
		pieces := Fold(line, 40, indent)
		if got := strings.Join(pieces, ""); got != line {
			t.Errorf("indent %d: joined pieces differ from the line", indent)
		}
		for i, p := range pieces {
			start := indent
			if i > 0 {
				start++
			}
			if w := columns(p, start); w > 40 {
				t.Errorf("indent %d: piece %d ends at column %d of 40: %q", indent, i, w, p)
			}
		}
	}
}

func columns(s string, col int) int {
	w := 0
	for i := 0; i < len(s); {
		end, c := unit(s, i, col+w)
		w, i = w+c, end
	}
	return col + w
}

func oneUnit(s string, col int) bool {
	end, _ := unit(s, 0, col)
	return end == len(s)
}

func TestEscapeLen(t *testing.T) {
	for s, want := range map[string]int{`\u{fe00}x`: 8, `\x{ff}`: 6, `\u{}`: 0, `\u{fe00`: 0, `\u{FE00}`: 0, `\n`: 0, `\u{e0100}`: 9} {
		if got := escapeLen(s); got != want {
			t.Errorf("escapeLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// The backslashes Line doubled before an escape stay with it: no piece ends
// inside such a run, where the next piece would start with an escape that is
// text (\u{0435} typed in the source), or with a doubled backslash that makes
// a real character's escape read as text.
func TestFoldKeepsBackslashRuns(t *testing.T) {
	for _, line := range []string{
		Line(strings.Repeat(`x\u{0435}`, 50), 0),             // the text, not the character
		Line(strings.Repeat("x\\\u202e", 50), 0),             // a backslash, then the character
		Line(strings.Repeat(`ab\\\u{fe00}`+"\ufe00", 30), 0), // both
	} {
		for cols := 5; cols <= 16; cols++ {
			pieces := Fold(line, cols, 0)
			if strings.Join(pieces, "") != line {
				t.Fatalf("at %d columns the pieces lose bytes", cols)
			}
			for i := 1; i < len(pieces); i++ {
				if strings.HasSuffix(pieces[i-1], `\`) && strings.HasPrefix(pieces[i], `\`) {
					t.Fatalf("at %d columns a run of backslashes is cut: %q | %q", cols, pieces[i-1], pieces[i])
				}
			}
		}
	}
}

// FoldMark takes two columns on a terminal that draws East Asian ambiguous
// characters wide (… is one): a piece behind it still fits the screen.
func TestFoldMarkTwoColumns(t *testing.T) {
	line := strings.Repeat("PRIMES = [2, 3, 5, 7, 11, 13], ", 20)
	for _, indent := range []int{0, 3} {
		for i, p := range Fold(line, 40, indent) {
			start := indent
			if i > 0 {
				start += 2
			}
			if w := columns(p, start); w > 40 {
				t.Errorf("indent %d: piece %d ends at column %d of 40: %q", indent, i, w, p)
			}
		}
	}
}
