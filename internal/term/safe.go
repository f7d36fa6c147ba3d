package term

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Path renders a file name for a terminal: printable UTF-8 as it is, anything that
// could move the cursor, recolour or reorder the screen, or that a terminal shows
// as nothing or as something else (control bytes, invalid UTF-8, the characters
// Invisible names), as a visible escape, quoted like git does. A file name must
// never be able to hide a warning.
func Path(p string) string {
	return PathNames(p, nil)
}

// PathNames is Path that also shows every character outside ASCII of the
// names escape picks (runs of NameRune in the path) as an escape, as
// LineNames does: src/\u{0430}uth.py is not src/auth.py.
func PathNames(p string, escape func(name string) bool) string {
	if !needsQuote(p) && !pickedAny(p, escape) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	var rd reading
	inName := false
	for i := 0; i < len(p); {
		if escape != nil && !inName {
			if end := nameEnd(p, i); end > i {
				inName = true
				if escape(p[i:end]) {
					writeEscaped(&b, p[i:end])
					rd.base, i = true, end
					continue
				}
			}
		}
		r, size := utf8.DecodeRuneInString(p[i:])
		inName = inName && NameRune(r) && !(r == utf8.RuneError && size <= 1)
		bad := r == utf8.RuneError && size <= 1
		hidden := rd.escapes(r)
		switch {
		case bad:
			fmt.Fprintf(&b, `\%03o`, p[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case cEscape[r] != "":
			b.WriteString(cEscape[r])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		case hidden:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// cEscape are the escapes git's quoting uses for control characters.
var cEscape = map[rune]string{'\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`}

// pickedAny reports whether escape picks a name of p that has a character
// outside ASCII.
func pickedAny(p string, escape func(string) bool) bool {
	if escape == nil || ASCIIPrefix([]byte(p)) == len(p) {
		return false
	}
	for i := 0; i < len(p); {
		end := nameEnd(p, i)
		if end == i {
			_, size := utf8.DecodeRuneInString(p[i:])
			i += size
			continue
		}
		if ASCIIPrefix([]byte(p[i:end])) < end-i && escape(p[i:end]) {
			return true
		}
		i = end
	}
	return false
}

func needsQuote(p string) bool {
	var rd reading
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if (r == utf8.RuneError && size <= 1) || r < 0x20 || r == 0x7f || r == '"' || r == '\\' || rd.escapes(r) {
			return true
		}
		i += size
	}
	return false
}

// Invisible reports whether a terminal shows r as nothing, as blank space or
// as something other than itself, wherever it stands: the C1 controls, every
// format character (Cf: zero-width characters, bidi controls, the tag
// characters U+E0000–E007F), the default-ignorable code points (variation
// selectors U+FE00–FE0F and U+E0100–E01EF, the combining grapheme joiner
// U+034F, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, …), whitespace
// other than the ASCII space and tab (U+00A0, U+2000–200A, U+2028, U+2029,
// U+3000, …), the blank Braille pattern, private-use characters and code
// points Unicode has not assigned. A combining mark is invisible by place, not
// by itself: see CountInvisible.
func Invisible(r rune) bool {
	switch {
	case r < 0xa0:
		return r >= 0x80
	case r == 0x2800: // BRAILLE PATTERN BLANK: drawn as a space
		return true
	case unicode.IsLetter(r) || unicode.IsMark(r):
		// letters and marks are seen, but for the fillers (Lo), the variation
		// selectors and the grapheme joiner (Mn), which are ignorable
		return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
	case unicode.In(r, unicode.N, unicode.P, unicode.S):
		return false
	}
	return true // Z but the ASCII space, C (Cf, Co, Cs), and unassigned
}

// reading follows a text character by character and says which characters
// are not shown as themselves: the Invisible ones, and the combining marks
// (Mn, Me) that do not stand on a visible letter or digit of the same word,
// which a terminal draws on whatever comes before them or not at all.
type reading struct {
	base bool // the last character is a letter or digit a mark can stand on
}

// escapes reports whether r, after what was read, is shown as an escape,
// and reads it. Controls and ASCII are not its business: it says false.
func (rd *reading) escapes(r rune) bool {
	if r < utf8.RuneSelf {
		rd.base = asciiBase(byte(r))
		return false
	}
	if Invisible(r) {
		rd.base = false
		return true
	}
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return !rd.base // a mark on a base keeps it a base for the next mark
	}
	rd.base = unicode.In(r, unicode.L, unicode.N, unicode.Mc)
	return false
}

func asciiBase(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// CountInvisible counts the characters of a line that Line shows as an escape
// \u{…} because a terminal would not show them: the Invisible ones, and the
// combining marks without a visible base. ASCII is skipped eight bytes at a time.
func CountInvisible(b []byte) int {
	i := ASCIIPrefix(b)
	if i == len(b) {
		return 0
	}
	rd := reading{base: i > 0 && asciiBase(b[i-1])}
	n := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			rd.base = asciiBase(b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			rd.base = false
		} else if rd.escapes(r) {
			n++
		}
		i += size
	}
	return n
}

// ASCIIPrefix is the length of b's ASCII start, read eight bytes at a time:
// len(b) when b is all ASCII.
func ASCIIPrefix(b []byte) int {
	i := 0
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// NameRune reports whether r can be part of a name in a programming
// language: a letter, a mark, a digit or other number, a connector such as
// _, or a middle dot (Python's Other_ID_Continue).
func NameRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiBase(byte(r)) || r == '_'
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc) || r == 0xb7 || r == 0x387
}

// ShellQuote quotes s for a POSIX shell, for a command line shown to a human
// to copy; plain words stay as they are.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./=+:,@%", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Line renders one line of file content for a terminal: tabs stay, other control
// characters become caret notation (^[ for ESC, ^M for CR), an invalid UTF-8 byte
// \x{ff}, and the characters a terminal would not show (see CountInvisible)
// \u{fe00}, so content can't rewrite what is on screen nor hide in it. Escapes are
// unambiguous: a run of backslashes in the text that comes before something that
// reads as an escape (\u{, \x{, or an escaped character) is doubled, so an odd
// run before u{ starts an escape and an even one is the text's.
// Lines longer than max runes are cut with a note (max <= 0: no cut).
func Line(s string, max int) string {
	if plain(s) && (max <= 0 || len(s) <= max) {
		return s
	}
	return render(s, max, true, nil)
}

// LineNames is Line, whole, that also shows every character outside ASCII of
// the names escape picks (a name: a run of NameRune) as an escape: a name
// that reads as another (Cyrillic о in оk) is seen for what it is, \u{043e}k.
func LineNames(s string, escape func(name string) bool) string {
	if plain(s) {
		return s
	}
	return render(s, 0, true, escape)
}

// Message renders a line of a message of ours for a terminal, as Line does,
// but leaves backslashes alone: a message quotes values already escaped (Path's
// "a\u{2028}b"), and doubling their backslashes would misquote them. What an
// agent wrote and slipped in unescaped still cannot hide or rewrite anything.
func Message(s string) string {
	if plain(s) {
		return s
	}
	return render(s, 0, false, nil)
}

// render is Line's and Message's slow path; unambiguous doubles the
// backslashes that come before what reads as an escape; names, when not nil,
// picks the names whose characters outside ASCII are escaped.
func render(s string, max int, unambiguous bool, names func(string) bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	var rd reading
	n := 0
	inName := false // s[i] continues a name already read
	for i := 0; i < len(s); {
		if max > 0 && n >= max {
			fmt.Fprintf(&b, " … (%d more bytes)", len(s)-i)
			break
		}
		if names != nil && !inName {
			if end := nameEnd(s, i); end > i {
				inName = true
				if names(s[i:end]) {
					writeEscaped(&b, s[i:end])
					rd.base = true
					n, i = n+utf8.RuneCountInString(s[i:end]), end
					continue
				}
			}
		}
		if s[i] == '\\' && unambiguous {
			j := i + 1
			for j < len(s) && s[j] == '\\' {
				j++
			}
			b.WriteString(s[i:j])
			if escapeFollows(s[j:]) || pickedEscape(s, j, names) {
				b.WriteString(s[i:j])
			}
			rd.base, inName = false, false
			n, i = n+j-i, j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		inName = inName && NameRune(r) && !(r == utf8.RuneError && size <= 1)
		hidden := rd.escapes(r)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x{%02x}`, s[i])
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case hidden:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
		n++
	}
	return b.String()
}

// nameEnd is the end of the name (a run of NameRune) that starts at s[i],
// or i.
func nameEnd(s string, i int) int {
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == utf8.RuneError && size <= 1 || !NameRune(r) {
			break
		}
		j += size
	}
	return j
}

// pickedEscape reports whether a name names picks starts at s[j] with a
// character outside ASCII: shown, it starts with an escape.
func pickedEscape(s string, j int, names func(string) bool) bool {
	if names == nil || j >= len(s) || s[j] < utf8.RuneSelf {
		return false
	}
	end := nameEnd(s, j)
	return end > j && names(s[j:end])
}

// writeEscaped writes a name with every character outside ASCII escaped.
func writeEscaped(b *strings.Builder, name string) {
	for _, r := range name {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(b, `\u{%04x}`, r)
	}
}

// EscapeName is a name with every character outside ASCII escaped, as
// LineNames shows it: \u{043e}k.
func EscapeName(name string) string {
	var b strings.Builder
	writeEscaped(&b, name)
	return b.String()
}

// plain reports whether Line shows s as it is, byte for byte: printable
// ASCII and tabs, and no backslash before what reads as an escape, checked a
// byte at a time; anything else is left to the slow path.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' || c == '\t' {
			continue
		}
		if c != '\\' {
			return false // a control, or not ASCII
		}
		j := i + 1
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && s[j] >= utf8.RuneSelf || escapeFollows(s[j:]) {
			return false
		}
		i = j - 1
	}
	return true
}

// escapeFollows reports whether what follows a run of backslashes would read
// as an escape of Line's: a literal u{ or x{, an invalid byte or an escaped
// character (after a backslash, a mark has no base).
func escapeFollows(rest string) bool {
	if len(rest) >= 2 && (rest[0] == 'u' || rest[0] == 'x') && rest[1] == '{' {
		return true
	}
	if rest == "" || rest[0] < utf8.RuneSelf {
		return false
	}
	r, size := utf8.DecodeRuneInString(rest)
	var rd reading
	return r == utf8.RuneError && size <= 1 || rd.escapes(r)
}
