package diffgate

import (
	"flag"
	"testing"

	"github.com/git-tdd/git-tdd/internal/manpage"
)

var update = flag.Bool("update", false, "rewrite the man page from the command-line model")

// The committed man page is the one the model renders: run go test ./internal/diffgate -update after changing a command.
func TestManPageIsCurrent(t *testing.T) {
	if err := manpage.Check("../../man/git-diffgate.1", ManPage, *update); err != nil {
		t.Fatal(err)
	}
}
