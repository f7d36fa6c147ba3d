// Command git-tdd is the TDD lifecycle: see git tdd -h.
package main

import (
	"os"

	"github.com/git-tdd/git-tdd/internal/tdd"
)

func main() { os.Exit(tdd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
