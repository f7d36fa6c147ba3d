package lookalike

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// syntax is what a language's lexer must know to tell code from comments and
// strings, which is all Resolve asks: exact for Python and Go, close for the
// C family, JavaScript, shells and SQL (their regular expressions, heredocs
// and raw strings of many forms are read as code or as strings, which one the
// quotes say).
type syntax struct {
	line     []string    // what opens a comment to the end of the line
	hashWord bool        // # opens a comment only at the start of a word (shells: $#, a#b)
	block    [][2]string // block comments
	quotes   string      // what opens a string
	char     bool        // ' opens a character literal only: 'x', '\n' ('a is a Rust lifetime)
	python   bool        // prefixes (r, b, f…), triple quotes, f-strings' {code}
	raw      byte        // the quote of strings without escapes (Go's `)
	multi    byte        // the quote of strings over several lines (` in Go and JavaScript)
	interp   string      // opens code in a multi string: ${ (JavaScript's templates)
	splices  bool        // a backslash at the end of a line joins the next to it, comments too (C, C++)
}

var (
	pythonSyntax = &syntax{line: []string{"#"}, quotes: `"'`, python: true}
	goSyntax     = &syntax{line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: "\"'`", char: true, raw: '`', multi: '`'}
	cSyntax      = &syntax{line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: `"'`, char: true}
	cppSyntax    = &syntax{line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: `"'`, char: true, splices: true}
	jsSyntax     = &syntax{line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: "\"'`", multi: '`', interp: "${"}
	phpSyntax    = &syntax{line: []string{"//", "#"}, block: [][2]string{{"/*", "*/"}}, quotes: `"'`}
	shellSyntax  = &syntax{line: []string{"#"}, hashWord: true, quotes: `"'`}
	sqlSyntax    = &syntax{line: []string{"--"}, block: [][2]string{{"/*", "*/"}}, quotes: `"'`}
)

// byExtension are the languages told by a file's extension; files of others
// (prose, data: .md, .txt, .json, .yaml…) are text.
var byExtension = map[string]*syntax{
	".py": pythonSyntax, ".pyi": pythonSyntax, ".pyw": pythonSyntax,
	".go": goSyntax,
	".c":  cppSyntax, ".h": cppSyntax, ".cc": cppSyntax, ".cpp": cppSyntax, ".cxx": cppSyntax, ".hpp": cppSyntax, ".hh": cppSyntax, ".hxx": cppSyntax,
	".java": cSyntax, ".cs": cSyntax, ".kt": cSyntax, ".kts": cSyntax, ".scala": cSyntax, ".swift": cSyntax, ".rs": cSyntax,
	".m": cppSyntax, ".mm": cppSyntax, ".groovy": cSyntax, ".gradle": cSyntax, ".zig": cSyntax, ".proto": cSyntax, ".sol": cSyntax,
	".js": jsSyntax, ".mjs": jsSyntax, ".cjs": jsSyntax, ".jsx": jsSyntax, ".ts": jsSyntax, ".tsx": jsSyntax, ".mts": jsSyntax, ".cts": jsSyntax,
	".dart": jsSyntax, ".vue": jsSyntax, ".svelte": jsSyntax,
	".php": phpSyntax,
	".sh":  shellSyntax, ".bash": shellSyntax, ".zsh": shellSyntax, ".ksh": shellSyntax, ".fish": shellSyntax,
	".rb": shellSyntax, ".pl": shellSyntax, ".pm": shellSyntax, ".r": shellSyntax, ".ps1": shellSyntax, ".tcl": shellSyntax,
	".mk": shellSyntax, ".cmake": shellSyntax, ".nix": shellSyntax,
	".sql": sqlSyntax, ".lua": sqlSyntax,
}

// byName are the languages of files known by their whole name.
var byName = map[string]*syntax{
	"Makefile": shellSyntax, "GNUmakefile": shellSyntax, "makefile": shellSyntax, "Dockerfile": shellSyntax,
	"Containerfile": shellSyntax, "Rakefile": shellSyntax, "Gemfile": shellSyntax, "Justfile": shellSyntax, "justfile": shellSyntax,
	"SConstruct": pythonSyntax, "SConscript": pythonSyntax, "BUILD": pythonSyntax, "WORKSPACE": pythonSyntax,
}

// syntaxOf is the language of the file at p with this text: by extension, by
// name, or by its #! line; nil for text.
func syntaxOf(p string, text []byte) *syntax {
	base := path.Base(p)
	if s, ok := byExtension[strings.ToLower(path.Ext(base))]; ok {
		return s
	}
	if s, ok := byName[base]; ok {
		return s
	}
	if !bytes.HasPrefix(text, []byte("#!")) {
		return nil
	}
	first, _, _ := bytes.Cut(text, []byte("\n"))
	switch {
	case bytes.Contains(first, []byte("python")):
		return pythonSyntax
	case bytes.Contains(first, []byte("node")) || bytes.Contains(first, []byte("deno")) || bytes.Contains(first, []byte("bun")):
		return jsSyntax
	}
	return shellSyntax // sh, bash, ruby, perl, and what else a #! runs
}

// frame is a string being read, or code inside one (an f-string's {…}).
type frame struct {
	quote  byte // 0: code
	triple bool
	raw    bool
	interp bool // code can open in it
	depth  int  // of a code frame: brackets open in it
}

// lexer walks a text and says, at each offset asked, whether it is code.
type lexer struct {
	*syntax
	text    []byte
	offsets []int // ascending; -1 first for places the text lacks
	code    []bool
	k       int
}

// inCode reports, for each offset (ascending), whether it stands in code:
// not in a comment, nor in a string (but in code inside one).
func (s *syntax) inCode(text []byte, offsets []int) []bool {
	lx := &lexer{syntax: s, text: text, offsets: offsets, code: make([]bool, len(offsets))}
	for lx.k < len(offsets) && offsets[lx.k] < 0 {
		lx.k++
	}
	lx.run()
	lx.mark(len(text)+1, true)
	return lx.code
}

// mark records the state of every offset before end.
func (lx *lexer) mark(end int, code bool) {
	for lx.k < len(lx.offsets) && lx.offsets[lx.k] < end {
		lx.code[lx.k] = code
		lx.k++
	}
}

func (lx *lexer) run() {
	t := lx.text
	stack := []frame{{}}
	for i := 0; i < len(t); {
		top := &stack[len(stack)-1]
		if top.quote != 0 { // in a string
			lx.mark(i, false)
			end, opened, closed := lx.inString(top, i)
			lx.mark(end, false)
			switch {
			case opened:
				stack = append(stack, frame{})
			case closed:
				stack = stack[:len(stack)-1]
			}
			i = end
			continue
		}
		lx.mark(i+1, true)
		c := t[i]
		if n := lx.comment(i); n > 0 {
			lx.mark(i+n, false)
			i += n
			continue
		}
		if len(stack) > 1 { // code inside a string: its brackets, and its end
			switch c {
			case '(', '[', '{':
				top.depth++
			case ')', ']':
				top.depth--
			case '}':
				if top.depth == 0 {
					stack = stack[:len(stack)-1]
					i++
					continue
				}
				top.depth--
			}
		}
		if strings.IndexByte(lx.quotes, c) >= 0 {
			if f, n := lx.open(i); n > 0 {
				stack = append(stack, f)
				i += n
				continue
			}
		}
		i++
	}
}

// comment is the length of a comment that starts at i, or 0.
func (lx *lexer) comment(i int) int {
	t := lx.text
	for _, o := range lx.line {
		if !bytes.HasPrefix(t[i:], []byte(o)) {
			continue
		}
		if o == "#" && lx.hashWord && i > 0 && !isSpace(t[i-1]) {
			continue
		}
		end := i
		for {
			n := bytes.IndexByte(t[end:], '\n')
			if n < 0 {
				return len(t) - i
			}
			end += n
			if !lx.splices || !RunsOn(t[i:end]) {
				return end - i
			}
			end++ // spliced: the comment goes on
		}
	}
	for _, b := range lx.block {
		if !bytes.HasPrefix(t[i:], []byte(b[0])) {
			continue
		}
		if n := bytes.Index(t[i+len(b[0]):], []byte(b[1])); n >= 0 {
			return len(b[0]) + n + len(b[1])
		}
		return len(t) - i
	}
	return 0
}

// open reads the quote at i: the string it opens and the bytes of its
// opening, or 0 when it opens none (a Rust lifetime).
func (lx *lexer) open(i int) (frame, int) {
	t := lx.text
	q := t[i]
	if q == '\'' && lx.char {
		if n := charLen(t[i:]); n > 0 {
			lx.mark(i+n, false)
			return frame{}, 0 // read whole here: nothing opens
		}
		return frame{}, 0
	}
	f := frame{quote: q, raw: q == lx.raw, interp: q == lx.multi && lx.interp != ""}
	if lx.python {
		prefix := pythonPrefix(t[:i])
		f.raw = strings.ContainsAny(prefix, "rR")
		f.interp = strings.ContainsAny(prefix, "fFtT")
		if bytes.HasPrefix(t[i:], []byte{q, q, q}) {
			f.triple = true
			return f, 3
		}
	}
	return f, 1
}

// pythonPrefix is the string prefix (r, b, f, rb, Rf…) right before a quote:
// the whole word before it, when it is one.
func pythonPrefix(before []byte) string {
	j := len(before)
	for j > 0 && (isWord(before[j-1])) {
		j--
	}
	w := string(before[j:])
	if len(w) > 2 || strings.Trim(w, "rRbBuUfFtT") != "" {
		return ""
	}
	return w
}

// charLen is the length of a character literal at the start of t ('x',
// '\n', '\u{1F600}', 'é'), or 0 when the quote opens none.
func charLen(t []byte) int {
	end := min(len(t), 16)
	if end < 3 || t[1] == '\n' || t[1] == '\'' {
		return 0
	}
	j := 2
	if t[1] == '\\' {
		for j < end && t[j] != '\'' && t[j] != '\n' {
			j++
		}
	} else {
		_, size := utf8.DecodeRune(t[1:])
		j = 1 + size
	}
	if j < end && t[j] == '\'' {
		return j + 1
	}
	return 0
}

// inString reads a string from i to its end (after the closing quote:
// closed), to an opening of code in it (opened), or to the end of the line
// for a string that cannot span lines.
func (lx *lexer) inString(f *frame, i int) (end int, opened, closed bool) {
	t := lx.text
	for i < len(t) {
		c := t[i]
		switch {
		case c == '\\' && !(f.raw && !lx.python):
			if i+1 < len(t) && t[i+1] == '\r' && i+2 < len(t) && t[i+2] == '\n' {
				i += 3
				continue
			}
			i += 2
			continue
		case c == f.quote:
			if !f.triple {
				return i + 1, false, true
			}
			if bytes.HasPrefix(t[i:], []byte{c, c, c}) {
				return i + 3, false, true
			}
		case c == '\n' && !f.triple && f.quote != lx.multi:
			return i + 1, false, true // unterminated: the line ends it
		case f.interp && lx.python && c == '{':
			if i+1 < len(t) && t[i+1] == '{' {
				i += 2
				continue
			}
			return i + 1, true, false
		case f.interp && lx.interp != "" && bytes.HasPrefix(t[i:], []byte(lx.interp)):
			return i + len(lx.interp), true, false
		}
		i++
	}
	return i, false, true
}

// RunsOn reports whether a line (without its line feed) ends in a backslash,
// which in C and C++ joins the next line to it.
func RunsOn(line []byte) bool {
	line = bytes.TrimSuffix(line, []byte("\r"))
	return len(line) > 0 && line[len(line)-1] == '\\'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isWord(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_'
}
