package symbols

import (
	"strings"
	"testing"
)

// extraction is one table row of what a source file defines.
type extraction struct{ name, src, want string }

// checkDefinitions parses each source and compares what it defines.
func checkDefinitions(t *testing.T, lang Language, tests []extraction) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(lang, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := defs(s); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// checkUnparsable: none of the sources parses.
func checkUnparsable(t *testing.T, lang Language, srcs []string) {
	t.Helper()
	for _, src := range srcs {
		if _, err := Parse(lang, []byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

// defs renders what a file defines as "kind name" lines, for comparison.
func defs(s *Source) string {
	var out []string
	for _, d := range s.Defs {
		line := d.Kind + " " + d.Name
		if d.Parent != "" {
			line += " in " + d.Parent
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// bodies parses src and returns the body of a definition by name.
func bodies(t *testing.T, lang Language, src string) func(name string) Body {
	t.Helper()
	s, err := Parse(lang, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) Body {
		for i, d := range s.Defs {
			if d.Name == name {
				return s.Body(i)
			}
		}
		t.Fatalf("no %s", name)
		return nil
	}
}
