package tokens

import (
	"fmt"
	"strings"
	"testing"
)

// Known counts of cl100k_base (as Python's tiktoken gives them).
func TestCount(t *testing.T) {
	tests := map[string]int{
		"":                                   0,
		"hello world":                        2,
		"Hello, world!":                      4,
		"def add(a, b):\n    return a + b\n": 12,
	}
	for in, want := range tests {
		if got := Count(in); got != want {
			t.Errorf("Count(%q) = %d, want %d", in, got, want)
		}
	}
	if n := Count("caf\xe9"); n < 1 {
		t.Errorf("invalid UTF-8: %d", n)
	}
	// the conformance case: 30 files of 9,000 "wordN" are well over 200,000 tokens
	var b strings.Builder
	for j := 0; j < 9000; j++ {
		fmt.Fprintf(&b, "word%d ", j)
	}
	if n := Count(b.String()); n < 18000 || n*30 < 200000 {
		t.Errorf("%d tokens for 9000 numbered words", n)
	}
}
