package diffgate

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the man pages from the command-line model")

// The committed man page is the one the model renders: run go test ./internal/diffgate -update after changing a command.
func TestManPageIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := ManPage(&b); err != nil {
		t.Fatal(err)
	}
	const path = "../../man/git-diffgate.1"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("%s is out of date: run go test ./internal/diffgate -update", path)
	}
	if _, err := exec.LookPath("groff"); err == nil {
		out, err := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z", path).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("groff warns: %v\n%s", err, out)
		}
	}
}
