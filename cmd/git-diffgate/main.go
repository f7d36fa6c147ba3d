// Command git-diffgate is the review gate: see git diffgate -h.
package main

import (
	"os"

	"github.com/git-tdd/git-tdd/internal/diffgate"
)

func main() { os.Exit(diffgate.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
