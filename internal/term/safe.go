package term

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Path renders a file name for a terminal: printable UTF-8 as it is, anything that
// could move the cursor, recolour or reorder the screen (control bytes, invalid UTF-8,
// bidi and zero-width format characters) as a visible escape, quoted like git does.
// A file name must never be able to hide a warning.
func Path(p string) string {
	if !needsQuote(p) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\%03o`, p[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case cEscape[r] != "":
			b.WriteString(cEscape[r])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		case unsafeRune(r):
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

func needsQuote(p string) bool {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if (r == utf8.RuneError && size <= 1) || r < 0x20 || r == 0x7f || r == '"' || r == '\\' || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafeRune reports C1 controls, format characters (bidi overrides, zero-width
// joiners) and the line and paragraph separators: invisible on a terminal, or
// a line break to some, able to make text read differently than it is.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
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
// characters become caret notation (^[ for ESC, ^M for CR), invalid UTF-8 bytes and
// format characters a visible escape, so content can't rewrite what is on screen.
// Lines longer than max runes are cut with a note (max <= 0: no cut).
func Line(s string, max int) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || (r < 0x20 && r != '\t') || r == 0x7f || unsafeRune(r) {
			clean = false
			break
		}
		i += size
	}
	if clean && (max <= 0 || len(s) <= max) {
		return s
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if max > 0 && n >= max {
			fmt.Fprintf(&b, " … (%d more bytes)", len(s)-i)
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteRune(r)
		}
		i += size
		n++
	}
	return b.String()
}
