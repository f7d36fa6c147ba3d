package jstitle

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

type kind int

const (
	punct    kind = iota
	ident         // a name or a number
	str           // '…' or "…"
	template      // `…`, holes and all
)

// token is one token of the source; a string or template carries the
// pattern of its text.
type token struct {
	kind    kind
	text    string
	pattern Part
}

func (t token) is(p string) bool { return t.kind == punct && t.text == p }

// tokenize splits JavaScript or TypeScript into the tokens Paths needs:
// names, punctuation, string and template literals; comments and regular
// expression literals are dropped. It never fails: what it cannot read it
// steps over.
func tokenize(s string) []token {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "//"):
			i = lineEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			if k := strings.Index(s[i+2:], "*/"); k >= 0 {
				i += k + 4
			} else {
				i = len(s)
			}
		case c == '\'' || c == '"':
			end := quoted(s, i)
			text := unquote(s[i:end])
			out = append(out, token{kind: str, text: text, pattern: Part(literalPattern(text))})
			i = end
		case c == '`':
			end, pattern := templateAt(s, i)
			out = append(out, token{kind: template, pattern: Part(pattern)})
			i = end
		case c == '/' && regexAllowed(out):
			i = regexEnd(s, i)
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			out = append(out, token{kind: ident, text: s[i:j]})
			i = j
		default:
			out = append(out, token{kind: punct, text: string(c)})
			i++
		}
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func lineEnd(s string, i int) int {
	if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(s)
}

// quoted is the end of the string literal at s[i].
func quoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(s)
}

// unquote is a string literal's value; one it cannot decode, its text
// between the quotes.
func unquote(lit string) string {
	if len(lit) < 2 || lit[len(lit)-1] != lit[0] {
		return strings.TrimLeft(lit, `'"`)
	}
	body := lit[1 : len(lit)-1]
	if !strings.Contains(body, `\`) {
		return body
	}
	if v, err := strconv.Unquote(`"` + strings.ReplaceAll(strings.ReplaceAll(body, `\'`, `'`), `"`, `\"`) + `"`); err == nil {
		return v
	}
	return body
}

// templateAt reads the template literal at s[i]: its end, and its pattern,
// each ${…} hole any text.
func templateAt(s string, i int) (int, string) {
	var b strings.Builder
	var text strings.Builder
	flush := func() {
		b.WriteString(literalPattern(text.String()))
		text.Reset()
	}
	j := i + 1
	for j < len(s) {
		switch {
		case s[j] == '\\' && j+1 < len(s):
			text.WriteString(unquote(`"` + s[j:j+2] + `"`))
			j += 2
		case s[j] == '`':
			flush()
			return j + 1, b.String()
		case strings.HasPrefix(s[j:], "${"):
			flush()
			b.WriteString(".*?")
			j = holeEnd(s, j+2)
		default:
			text.WriteByte(s[j])
			j++
		}
	}
	flush()
	return len(s), b.String()
}

// holeEnd is the end of a template's ${…} whose expression starts at s[i].
func holeEnd(s string, i int) int {
	depth := 1
	for i < len(s) {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = quoted(s, i)
		case c == '`':
			i, _ = templateAt(s, i)
		case c == '{':
			depth++
			i++
		case c == '}':
			depth--
			i++
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(s)
}

// regexAllowed reports whether a "/" after these tokens starts a regular
// expression literal rather than a division.
func regexAllowed(prev []token) bool {
	if len(prev) == 0 {
		return true
	}
	t := prev[len(prev)-1]
	switch t.kind {
	case str, template:
		return false
	case ident:
		return t.text == "return" || t.text == "typeof" || t.text == "case" || t.text == "in" || t.text == "of"
	}
	return t.text != ")" && t.text != "]" && t.text != "}"
}

var regexLit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+/[a-z]*`)
})

func regexEnd(s string, i int) int {
	if m := regexLit().FindStringIndex(s[i:]); m != nil {
		return i + m[1]
	}
	return i + 1
}

// matching maps the index of each ( [ { token to the index of the token that
// closes it (and each unclosed one to -1).
func matching(toks []token) []int {
	out := make([]int, len(toks))
	closer := map[string]string{")": "(", "]": "[", "}": "{"}
	var stack []int
	for i, t := range toks {
		out[i] = -1
		if t.kind != punct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			// pop to the opener this closes; a stray closer is ignored
			for k := len(stack) - 1; k >= 0; k-- {
				if toks[stack[k]].text == closer[t.text] {
					out[stack[k]] = i
					stack = stack[:k]
					break
				}
			}
		}
	}
	return out
}
