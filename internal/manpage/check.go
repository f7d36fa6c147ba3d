package manpage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Check compares the committed page at path with what render writes now,
// rewriting it first when update is set, and has groff (when installed) check
// it for warnings. The tests of both commands call it.
func Check(path string, render func(io.Writer) error, update bool) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		return fmt.Errorf("%s is out of date: run go test with -update in the command's package", path)
	}
	if _, err := exec.LookPath("groff"); err != nil {
		return nil
	}
	out, err := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		return fmt.Errorf("groff warns about %s: %v\n%s", path, err, out)
	}
	return nil
}
