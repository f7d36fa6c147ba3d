// Package jstitle finds the tests of a JavaScript or TypeScript test file
// (vitest, jest, node's test runner, mocha) by their full title path: the
// titles of the describe blocks around a test and its own, as the runners
// report them. A title of it.each, test.each or describe.each is a template
// ("lowercases %s", "returns $want for $input", `adds ${a}`): it is matched as
// a pattern against the reported name. The file is read, never run: a test
// declared any other way (a test function of another name, titles built at run
// time) is not found, and so does not count as the branch's.
package jstitle

import (
	"regexp"
	"strings"
	"sync"
)

// Exts are the file name endings of the files this package reads.
var Exts = []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}

// IsSource reports whether a path is a JavaScript or TypeScript file.
func IsSource(path string) bool {
	for _, e := range Exts {
		if strings.HasSuffix(path, e) {
			return true
		}
	}
	return false
}

// Separators are what runners put between the parts of a title path: vitest
// " > ", jest's default ancestorSeparator " " (between the describe blocks and
// before the title), " › " as jest prints it, and "::" where git tdd joins a
// report's classname and name.
var Separators = []string{" > ", " › ", "::", " "}

var separator = func() string {
	q := make([]string, len(Separators))
	for i, s := range Separators {
		q[i] = regexp.QuoteMeta(s)
	}
	return "(?:" + strings.Join(q, "|") + ")"
}()

// Has reports whether src declares a test whose full title path is the
// reported name title: the describe blocks and the test's title, joined by
// any of the Separators, each template matched as a pattern.
func Has(src []byte, title string) bool {
	title = strings.TrimSpace(title)
	if title == "" {
		return false
	}
	for _, p := range Paths(src) {
		if p.Matches(title) {
			return true
		}
	}
	return false
}

// Path is one test's title path: the pattern of each enclosing describe
// block's title, outermost first, then the test's.
type Path []Part

// Part is one title: a regular expression source matching it.
type Part string

// Matches reports whether the reported name is this path's.
func (p Path) Matches(name string) bool {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = string(x)
	}
	re, err := regexp.Compile(`^\s*` + strings.Join(parts, separator) + `\s*$`)
	return err == nil && re.MatchString(strings.TrimSpace(name))
}

var (
	suiteFuncs = map[string]bool{"describe": true, "suite": true, "context": true, "fdescribe": true, "xdescribe": true}
	testFuncs  = map[string]bool{"it": true, "test": true, "specify": true, "fit": true, "xit": true, "xtest": true}
	// modifiers that take arguments of their own before the title's call
	tableMods = map[string]bool{"each": true, "for": true, "skipIf": true, "runIf": true}
	// modifiers that leave the title's call as it is; any other (test.extend,
	// test.scoped) makes something that is not a test
	plainMods = map[string]bool{"only": true, "skip": true, "todo": true, "concurrent": true, "sequential": true,
		"fails": true, "failing": true, "shuffle": true}
)

type call struct {
	suite       bool
	title       Part
	open, close int // token indexes of the call's parentheses
}

// Paths are the title paths of every test src declares.
func Paths(src []byte) []Path {
	toks := tokenize(string(src))
	match := matching(toks)
	var calls []call
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != ident || (!suiteFuncs[t.text] && !testFuncs[t.text]) || i > 0 && toks[i-1].is(".") {
			continue
		}
		if c, ok := parseCall(toks, match, i); ok {
			c.suite = suiteFuncs[t.text]
			calls = append(calls, c)
		}
	}
	var out []Path
	for _, c := range calls {
		if c.suite {
			continue
		}
		var p Path
		for _, s := range calls {
			if s.suite && s.open < c.open && s.close > c.close {
				p = append(p, s.title) // calls are in source order: outermost first
			}
		}
		out = append(out, append(p, c.title))
	}
	return out
}

// parseCall reads describe/it/test at toks[i] with its modifiers
// (.only, .skip, .each(table), .each`table`, .skipIf(cond), <Type>) up to the
// call that takes the title.
func parseCall(toks []token, match []int, i int) (call, bool) {
	j := i + 1
	for j < len(toks) {
		switch {
		case toks[j].is(".") && j+1 < len(toks) && toks[j+1].kind == ident:
			mod := toks[j+1].text
			j += 2
			if plainMods[mod] {
				continue
			}
			if !tableMods[mod] {
				return call{}, false
			}
			j = skipGeneric(toks, j)
			switch {
			case j < len(toks) && toks[j].kind == template:
				j++
			case j < len(toks) && toks[j].is("(") && match[j] > j:
				j = match[j] + 1
			default:
				return call{}, false
			}
		case toks[j].is("<"):
			k := skipGeneric(toks, j)
			if k == j {
				return call{}, false
			}
			j = k
		case toks[j].is("(") && match[j] > j:
			return call{title: titleOf(toks, j+1, match[j]), open: j, close: match[j]}, true
		default:
			return call{}, false
		}
	}
	return call{}, false
}

// skipGeneric steps over a TypeScript type argument list <...> at toks[j].
func skipGeneric(toks []token, j int) int {
	if j >= len(toks) || !toks[j].is("<") {
		return j
	}
	depth := 0
	for k := j; k < len(toks) && k < j+64; k++ {
		switch {
		case toks[k].is("<"):
			depth++
		case toks[k].is(">"):
			depth--
			if depth == 0 {
				return k + 1
			}
		case toks[k].is("(") || toks[k].is(";"):
			return j
		}
	}
	return j
}

// titleOf is the pattern of a call's first argument, toks[from:to]: a string
// or template literal as itself, anything else (a function, a variable, a
// class) any title.
func titleOf(toks []token, from, to int) Part {
	if from < to && (toks[from].kind == str || toks[from].kind == template) &&
		(from+1 == to || toks[from+1].is(",")) {
		return toks[from].pattern
	}
	return ".+"
}

// placeholders are what the runners' each fills in: printf's %s %d %i %f %j
// %o %O %p %c, jest's %# and %$ (the row's index), and $name or $name.path of
// an object row.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`%[sdifjoOpc#$]|\$[A-Za-z_]\w*(?:\.\w+)*`)
})

// literalPattern is the pattern of a literal title: its text, each
// placeholder any text; "%%" is a "%".
func literalPattern(s string) string {
	var b strings.Builder
	for i, seg := range strings.Split(s, "%%") {
		if i > 0 {
			b.WriteString("%")
		}
		last := 0
		for _, m := range placeholder().FindAllStringIndex(seg, -1) {
			b.WriteString(regexp.QuoteMeta(seg[last:m[0]]))
			b.WriteString(".*?")
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(seg[last:]))
	}
	return b.String()
}
