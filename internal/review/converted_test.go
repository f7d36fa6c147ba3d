package review

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/term"
)

// A converted file's warning names what converts it and shows the text a
// checkout writes, the lines that are not the blob's marked.
func TestConvertedWarning(t *testing.T) {
	sjis := []string{"working-tree-encoding=SHIFT_JIS"}
	tests := []struct {
		name    string
		change  analysis.Change
		want    []string
		notWant []string
	}{
		{"re-encoded", analysis.Change{Status: analysis.Modified, LinesBefore: 3, Added: 1, Deleted: 1, Converted: sjis,
			Checkout: &analysis.Checkout{Text: []byte("import os\nG = \"\\\" # \"; os.system(\"x\")\nprint(G)\n"),
				Blob: []byte("import os\nG = \"¥\" # \"; os.system(\"x\")\nprint(G)\n")}}, []string{
			"CONVERTED: x.py (working-tree-encoding=SHIFT_JIS): the checkout differs from the blob\n",
			"  x.py as checked out (what git tdd and CI run), 3 lines; 1 differs from the blob (!):\n | import os\n ! G = \"\\\" # \"; os.system(\"x\")\n | print(G)\n",
		}, []string{"NOT SHOWN"}},
		{"CRLF alone is said once", analysis.Change{Status: analysis.Added, Added: 2, Converted: []string{"eol=crlf"},
			Checkout: &analysis.Checkout{Text: []byte("a\r\nb\r\r\nc\r\n"), Blob: []byte("a\nb\r\r\nc\r\n")}}, []string{
			"  x.py as checked out: the blob with CRLF line endings, every other byte the same\n",
		}, []string{" ! ", " | "}},
		{"CRLF and more: the lines are shown, a control character escaped", analysis.Change{Status: analysis.Added, Added: 1, Converted: []string{"eol=crlf", "ident"},
			Checkout: &analysis.Checkout{Text: []byte("a\x1b[2J\r\n$Id: 12 $\r\n"), Blob: []byte("a\x1b[2J\n$Id$\n")}}, []string{
			" ! a^[[2J^M\n ! $Id: 12 $^M\n", "2 lines; 2 differ",
		}, []string{"\x1b"}},
		{"more lines than the blob", analysis.Change{Status: analysis.Modified, LinesBefore: 1, Converted: []string{"filter=x"},
			Checkout: &analysis.Checkout{Text: []byte("a\nevil\na\n"), Blob: []byte("a\na\n")}}, []string{
			" | a\n ! evil\n | a\n",
		}, nil},
		{"a filter whose output is the blob", analysis.Change{Status: analysis.Modified, LinesBefore: 1, Converted: []string{"filter=lfs from .git/info/attributes"},
			Checkout: &analysis.Checkout{Text: []byte("a\n"), Same: true, Blob: []byte("a\n")}}, []string{
			"CONVERTED: x.py (filter=lfs from .git/info/attributes): the checkout runs the filter's command (which wrote the blob this time)\n",
			"1 line; 0 differ",
		}, nil},
		{"git cannot check it out", analysis.Change{Status: analysis.Modified, LinesBefore: 1, Converted: []string{"filter=bad"},
			Checkout: &analysis.Checkout{Err: "x.py: smudge filter bad failed"}}, []string{
			"CONVERTED: x.py (filter=bad): git cannot check it out here: x.py: smudge filter bad failed\n",
		}, []string{"as checked out"}},
		{"binary", analysis.Change{Status: analysis.Modified, Binary: true, Converted: []string{"filter=lfs"},
			Checkout: &analysis.Checkout{Text: []byte("\x89PNG\x00\x01"), Size: 6}}, []string{
			"x.py as checked out: binary, 6 bytes (not shown)\n",
		}, nil},
		{"larger than the review holds", analysis.Change{Status: analysis.Modified, LinesBefore: 1, Converted: []string{"ident"},
			Checkout: &analysis.Checkout{Text: []byte("a\nb"), Size: 10}}, []string{
			" ! a\n ! b\n", "NOT SHOWN: 7 more bytes of the checkout are not shown",
		}, nil},
		{"replaced and converted", analysis.Change{Status: analysis.Modified, LinesBefore: 100, Added: 1, Deleted: 100, Converted: sjis,
			Checkout: &analysis.Checkout{Text: []byte("a\n"), Blob: []byte("b\n")}}, []string{
			"REPLACED: x.py (100 → 1 lines)\n  CONVERTED: x.py (working-tree-encoding=SHIFT_JIS): the checkout differs from the blob\n",
		}, nil},
		{"a .gitattributes deleted", analysis.Change{Status: analysis.Deleted, LinesBefore: 1, Deleted: 1, AttributesFile: true}, []string{
			"DELETED: x.py\n  ATTRIBUTES: x.py deleted: attributes change how files check out (and are diffed and merged)\n",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change.Path, tt.change.OldPath = "x.py", "x.py"
			if c := tt.change.Checkout; c != nil && c.Size == 0 {
				c.Size = int64(len(c.Text))
			}
			var buf bytes.Buffer
			(&Printer{W: &buf, Width: 80}).Warning(analysis.Analyze(tt.change, analysis.Defaults))
			out := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("%q in:\n%s", w, out)
				}
			}
		})
	}
}

// The stat tags a converted file and a .gitattributes change.
func TestConvertedTags(t *testing.T) {
	rep := analysis.Build("t", "b", []analysis.Change{
		{Path: "x.py", OldPath: "x.py", Status: analysis.Modified, LinesBefore: 20, Added: 1, Deleted: 1, Converted: []string{"ident"}},
		{Path: ".gitattributes", Status: analysis.Added, Added: 1, AttributesFile: true},
	}, analysis.Defaults)
	var buf bytes.Buffer
	(&Printer{W: &buf, Width: 80}).Summary(rep)
	for _, w := range []string{"x.py           | 2 +-  CONVERTED\n", ".gitattributes | 1 +  ATTRIBUTES\n", "2 of 2 files need review",
		"  CONVERTED: x.py (ident): the checkout differs from the blob\n", "  ATTRIBUTES: .gitattributes added: "} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("missing %q in:\n%s", w, buf.String())
		}
	}
}

// BenchmarkCheckoutsNone is what the common case costs a review of 5,000
// files: no attributes in the tree, none outside it, no core.autocrlf.
func BenchmarkCheckoutsNone(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	ctx := context.Background()
	repo, err := gitx.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	diffs := make([]gitx.FileDiff, 5000)
	for i := range diffs {
		diffs[i].RawEntry = gitx.RawEntry{Status: 'M', OldMode: gitx.ModeRegular, NewMode: gitx.ModeRegular,
			Path: fmt.Sprintf("pkg%03d/mod%03d/file%05d.py", i%100, (i/100)%5, i*10)}
	}
	t := Target{AttributesKnown: true}
	b.ResetTimer()
	for range b.N {
		if got, under, err := checkouts(ctx, repo, t, diffs, 1<<20); err != nil || got != nil || under != nil {
			b.Fatal(got, under, err)
		}
	}
}

// screenCols is how wide a terminal draws a printed line (no colour): tabs
// to the next multiple of 8 from the left edge of the screen.
func screenCols(l string) int {
	col := 0
	for _, r := range l {
		if r == '\t' {
			col += 8 - col%8
			continue
		}
		col++ // the test's lines are ASCII
	}
	return col
}

// A checkout's line with tabs is folded as the terminal draws it, after the
// " | " mark: no piece is wider than the screen, so a pager that cuts long
// lines (less -S) or a terminal that does not wrap hides none of its end.
func TestCheckoutFoldWithTabs(t *testing.T) {
	line := strings.Repeat("abcde\t", 14) + "os.system('payload')"
	var buf bytes.Buffer
	pr := &Printer{W: &buf, Width: 40}
	pr.checkoutText("app.py", &analysis.Checkout{Text: []byte(line + "\n"), Size: int64(len(line) + 1)}, nil)
	var joined strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:] {
		if w := screenCols(l); w > 40 {
			t.Errorf("line %d is %d columns wide on a 40-column screen: %q", i, w, l)
		}
		piece := strings.TrimPrefix(l[3:], term.FoldMark)
		joined.WriteString(piece)
	}
	if joined.String() != line {
		t.Errorf("the pieces do not make the line:\n%q\n%q", joined.String(), line)
	}
}
