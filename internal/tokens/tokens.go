// Package tokens counts text the way the models' BPE tokenizer does, offline:
// the cl100k_base ranks are compiled into the binary and never downloaded.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding names the BPE ranks used.
const Encoding = "cl100k_base"

// The ranks become a map on first use only, so commands that never count pay
// nothing at start.
var cl100k = sync.OnceValue(func() *codec.Codec {
	c := codec.NewCl100kBase()
	c.SetErrorMode(codec.ErrorModeReplace) // invalid UTF-8 counts as U+FFFD, as Python's tiktoken does
	return c
})

// Count returns the number of tokens in s.
func Count(s string) int {
	n, err := cl100k().Count(s)
	if err != nil {
		return len(s) // unreachable in replace mode; never under-count
	}
	return n
}
