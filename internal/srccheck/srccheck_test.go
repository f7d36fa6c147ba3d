package srccheck

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, src string
		bad       string // what the error says, "" when it parses
	}{
		{"a.go", "package a\n\nfunc F() int { return 1 }\n", ""},
		{"a.go", "package a\n\nfunc F() int { return (1 }\n", "expected ')'"},
		{"a.py", "def f():\n    return 1\n", ""},
		{"a.py", "def f():\n    return (1\n", "SyntaxError"},
		{"a.py", "# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n", ""},
		{"a.txt", "return (1", ""},
	} {
		err := Check(ctx, tt.name, []byte(tt.src))
		if errors.Is(err, ErrNoPython) {
			t.Skip("python3 is not installed")
		}
		if (tt.bad == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.bad)) {
			t.Errorf("%s %q: %v, want %q", tt.name, tt.src, err, tt.bad)
		}
	}
}
