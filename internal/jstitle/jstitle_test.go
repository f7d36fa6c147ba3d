package jstitle

import (
	"os"
	"testing"
)

// Has finds a test by the whole of its title path, however the runner joins
// the parts, with the templates of each matched as patterns.
func TestHas(t *testing.T) {
	src := "import { describe, it, test, expect } from 'vitest'\n" +
		"// it('commented out', () => {})\n" +
		"test('top level', () => { expect(/it\\('x'/.test('a')).toBe(false) })\n" +
		"describe('upper', () => {\n" +
		"  it('handles the empty string', () => {})\n" +
		"  describe(\"nested\", () => { it.only('fails here', () => {}) })\n" +
		"})\n" +
		"describe('lower', () => {\n" +
		"  it.each(['A', 'B'])('lowercases %s', (s) => {})\n" +
		"  it.each([{ input: 'A', want: 'a' }])('returns $want for $input', () => {})\n" +
		"  test.each([[2, 3, 8]])('pow(%i, %i) = %i', () => {})\n" +
		"  test.each`\n    a | b\n    ${1} | ${2}\n  `('adds $a and $b', () => {})\n" +
		"  test.each<[number]>([[1]])('typed %d', () => {})\n" +
		"  it.skipIf(process.env.CI)('not on CI', () => {})\n" +
		"  it(`costs ${price()} in ${'eu' + `r${o}`}`, () => {})\n" +
		"  it('100%% sure', () => {})\n" +
		"})\n" +
		"describe.each([['x'], ['y']])('with %s', (v) => { it('keeps it', () => {}) })\n" +
		"describe(Calc, () => { test('a method', () => {}) })\n" +
		"const re = /test\\('fake'\\)/; re.test('x'); obj.it('not a test', () => {})\n" +
		"const myTest = test.extend({ page: async ({}, use) => use(1) })\n" +
		"it.concurrent.skip('both modifiers', () => {})\n"
	for _, tt := range []struct {
		title string
		want  bool
	}{
		{"top level", true},
		{" top level", true}, // jest-junit's {classname} {title} of a test outside describe
		{"upper > handles the empty string", true},
		{"upper handles the empty string", true},
		{"upper › nested › fails here", true},
		{"upper nested fails here", true},
		{"upper › nested::fails here", true},
		{"upper › nested fails here", true},         // jest-junit's default templates, ancestorSeparator " › "
		{"lower > handles the empty string", false}, // the same title in another block
		{"handles the empty string", false},         // a part of the path is not the path
		{"upper > fails here", false},
		{"lower > lowercases A", true},
		{"lower > returns 'a' for 'A'", true},
		{"lower returns a for A", true},
		{"lower > pow(2, 3) = 8", true},
		{"lower > adds 1 and 2", true},
		{"lower > typed 1", true},
		{"lower > not on CI", true},
		{"lower > costs 3 in eur", true},
		{"lower > 100% sure", true},
		{"with y > keeps it", true},
		{"without > keeps it", false},
		{"Calc > a method", true},
		{"commented out", false},
		{"fake", false},
		{"not a test", false},
		{"anything", false}, // test.extend({...}) is no test with any title
		{"both modifiers", true},
		{"", false},
	} {
		if got := Has([]byte(src), tt.title); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.title, got, tt.want)
		}
	}
}

// The test files the runners' reports in internal/runner/testdata/junit were
// written from: each reported name is found in its file.
func TestHasFixtures(t *testing.T) {
	for file, titles := range map[string][]string{
		"vitest.str.test.js": {"top level", "upper > nested > fails here", "lower > returns 'a' for 'A'", "with x > keeps it", "template > pow 1 2 is 1"},
		"jest.str.test.js":   {" top level", "upper nested fails here", "lower returns a for A", "lower pow 1 2 is 1", "with y keeps it", "upper › nested::fails here", "upper › nested fails here"},
		"node.str.test.js":   {"top level", "upper > nested > fails here", "lower > lowercases B"},
	} {
		src, err := os.ReadFile("../runner/testdata/junit/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, title := range titles {
			if !Has(src, title) {
				t.Errorf("%s: %q not found", file, title)
			}
		}
	}
}

func TestLiteralPattern(t *testing.T) {
	for in, want := range map[string]string{
		"plain (1+1)":  `plain \(1\+1\)`,
		"%s and %i":    `.*? and .*?`,
		"100%% $x.y z": `100% .*? z`,
		"%%s":          `%s`,
		"#%# $5":       `#.*? \$5`,
	} {
		if got := literalPattern(in); got != want {
			t.Errorf("literalPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
