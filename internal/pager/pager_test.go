package pager

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Which decides from git's answer (git var GIT_PAGER), --no-pager and the
// terminal's height.
func TestWhich(t *testing.T) {
	tests := []struct {
		name, git string
		noPager   bool
		rows      int
		want      string
	}{
		{"git's default", "less", false, 24, "less"},
		{"a pager with options", "less -S", false, 50, "less -S"},
		{"cat means none", "cat", false, 24, ""},
		{"empty means none", "", false, 24, ""},
		{"blank means none", "  ", false, 24, ""},
		{"--no-pager", "less", true, 24, ""},
		{"a terminal that reports no height: nothing to page by", "less", false, 0, ""},
	}
	for _, tt := range tests {
		if got := Which(tt.git, tt.noPager, tt.rows); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The pager runs as git runs it: sh -c with LESS=FRX and LV=-c unless set; it
// gets what is written, and its output goes to the terminal's file.
func TestStartWriteWait(t *testing.T) {
	dir := t.TempDir()
	screen, err := os.Create(filepath.Join(dir, "screen"))
	if err != nil {
		t.Fatal(err)
	}
	defer screen.Close()
	got := filepath.Join(dir, "got")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LESS=") && !strings.HasPrefix(kv, "LV=") {
			env = append(env, kv)
		}
	}
	p, err := Start(`cat > "$OUT"; printf '%s %s|' "$LESS" "$LV"`, screen, append(env, "OUT="+got, "LV=-x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("the review\n")); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); string(b) != "the review\n" {
		t.Errorf("the pager got %q", b)
	}
	if b, _ := os.ReadFile(screen.Name()); string(b) != "FRX -x|" {
		t.Errorf("the pager printed %q", b)
	}
}

// A human who quits the pager before the end: writing stops with ErrQuit.
func TestQuitEarly(t *testing.T) {
	screen, _ := os.Create(filepath.Join(t.TempDir(), "screen"))
	defer screen.Close()
	p, err := Start("exit 0", screen, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	chunk := []byte(strings.Repeat("x", 4096) + "\n")
	for i := 0; i < 1000 && werr == nil; i++ {
		_, werr = p.Write(chunk)
	}
	if !errors.Is(werr, ErrQuit) {
		t.Errorf("write after the pager quit: %v", werr)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("wait: %v", err)
	}
}

// A pager that cannot start is an error the caller falls back from.
func TestStartFails(t *testing.T) {
	screen, _ := os.Create(filepath.Join(t.TempDir(), "screen"))
	defer screen.Close()
	p, err := Start("/nonexistent/pager", screen, os.Environ())
	if err == nil {
		_, err = p.Write([]byte("x\n"))
		if werr := p.Wait(); err == nil {
			err = werr
		}
	}
	if err == nil {
		t.Error("no error from a pager that does not exist")
	}
}
