package review

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/symbols"
	"github.com/git-tdd/git-tdd/internal/term"
)

func sampleReport() *analysis.Report {
	return analysis.Build("t", "b", []analysis.Change{
		{Path: "keep.py", OldPath: "keep.py", Status: analysis.Modified, LinesBefore: 100, Added: 2, Deleted: 1},
		{Path: "src/state.py", OldPath: "src/state.py", Status: analysis.Modified, LinesBefore: 270, Added: 56, Deleted: 270},
		{Path: "a.txt", OldPath: "a.txt", Status: analysis.Modified, LinesBefore: 100, Added: 30, Deleted: 57},
		{Path: "old.py", OldPath: "old.py", Status: analysis.Deleted, LinesBefore: 10, Deleted: 10},
		{Path: "pkg/new.py", OldPath: "pkg/old.py", Status: analysis.Renamed, LinesBefore: 40, Added: 1, Deleted: 1},
		{Path: "logo.png", OldPath: "logo.png", Status: analysis.Modified, Binary: true},
	}, analysis.Defaults)
}

// T090: the human-readable report shows every file, the banner and the seed's
// messages for each flagged file.
func TestT090ReportFormatting(t *testing.T) {
	var buf bytes.Buffer
	pr := &Printer{W: &buf, Width: 80}
	rep := sampleReport()
	pr.Summary(rep)
	for _, f := range rep.FlaggedFiles() {
		pr.Warning(f)
	}
	out := buf.String()
	for _, want := range []string{
		" keep.py ", " src/state.py ", " pkg/old.py => pkg/new.py ", " logo.png ", "Bin",
		"6 files changed, 89 insertions(+), 339 deletions(-)",
		"WARNING: 4 of 6 files need review",
		"REPLACED: src/state.py (270 → 56 lines)",
		"WARNING: 87% of a.txt was changed",
		"DELETED: old.py",
		"WARNING: binary file logo.png was changed",
		"lines before: 270, after: 56 (+56 -270",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes without a palette")
	}
}

func TestSummaryNothingFlagged(t *testing.T) {
	var buf bytes.Buffer
	rep := analysis.Build("t", "b", []analysis.Change{{Path: "a", Status: analysis.Modified, LinesBefore: 10, Added: 1}}, analysis.Defaults)
	(&Printer{W: &buf, Width: 80}).Summary(rep)
	if !strings.Contains(buf.String(), "No file needs special review") || strings.Contains(buf.String(), "WARNING") {
		t.Errorf("%s", buf.String())
	}
}

func TestColourOnlyWithPalette(t *testing.T) {
	var buf bytes.Buffer
	(&Printer{W: &buf, P: term.NewPalette(true), Width: 80}).Summary(sampleReport())
	if !strings.Contains(buf.String(), "\x1b[31mREPLACED") {
		t.Errorf("no red REPLACED:\n%q", buf.String())
	}
}

// File names and content must not be able to rewrite the screen and hide a warning.
func TestHostileNamesAndContentAreEscaped(t *testing.T) {
	var buf bytes.Buffer
	evil := "x\x1b[2J\x1b[1A\rclean.py\u202e"
	rep := analysis.Build("t", "b", []analysis.Change{{Path: evil, Status: analysis.Deleted, LinesBefore: 1, Deleted: 1}}, analysis.Defaults)
	pr := &Printer{W: &buf, Width: 80}
	pr.Summary(rep)
	pr.Warning(rep.Files[0])
	pr.diffLine(gitx.Line{Kind: gitx.LineDeleted, Text: []byte("-print('\x1b[2Jall good')\r")}, nil)
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\r\u202e") {
		t.Errorf("raw control characters reached the terminal: %q", out)
	}
	if !strings.Contains(out, `DELETED: "x\033[2J\033[1A\rclean.py\u{202e}"`) || !strings.Contains(out, "^[[2Jall good')^M") {
		t.Errorf("escapes not shown:\n%s", out)
	}
}

func TestScaleBars(t *testing.T) {
	tests := []struct {
		add, del, maxc, w int64
		a, d              int
	}{
		{3, 2, 5, 10, 3, 2},
		{100, 0, 100, 10, 10, 0},
		{1, 999, 1000, 10, 1, 9},
		{0, 0, 1000, 10, 0, 0},
	}
	for _, tt := range tests {
		if a, d := scaleBars(tt.add, tt.del, tt.maxc, tt.w); a != tt.a || d != tt.d {
			t.Errorf("scaleBars(%d,%d,%d,%d) = %d,%d want %d,%d", tt.add, tt.del, tt.maxc, tt.w, a, d, tt.a, tt.d)
		}
	}
}

func TestTrailerFormat(t *testing.T) {
	at := time.Date(2026, 11, 21, 13, 4, 5, 0, time.FixedZone("x", 3600))
	if got := Trailer(at, "abc"); got != "Diffgate-Approved: 2026-11-21T12:04:05Z tree=abc" {
		t.Errorf("%q", got)
	}
}

func symbolsReport() *analysis.Report {
	return analysis.Build("t", "b", []analysis.Change{
		{Path: "big.py", OldPath: "big.py", Status: analysis.Modified, LinesBefore: 2000, Deleted: 60, Symbols: symbols.Verdict{
			Removed: []symbols.Ref{{Name: "load_state", Kind: "def"}, {Name: "Cache", Kind: "class"}}}},
		{Path: "state.py", OldPath: "state.py", Status: analysis.Deleted, LinesBefore: 40, Deleted: 40, Symbols: symbols.Verdict{
			Removed: []symbols.Ref{{Name: "keep", Kind: "def"}}, Moved: []symbols.Move{{Name: "save", Kind: "def", To: "store/io.py"}}}},
		{Path: "util.py", OldPath: "util.py", Status: analysis.Modified, LinesBefore: 100, Added: 1, Deleted: 1, Symbols: symbols.Verdict{
			Renamed: []symbols.Rename{{Name: "helper", Kind: "def", NewName: "assist"}}}},
		{Path: "broken.py", OldPath: "broken.py", Status: analysis.Modified, LinesBefore: 100, Added: 1, Symbols: symbols.Verdict{
			Note: "the old version does not parse (line 3: a string is not closed); only the share of changed lines is judged"}},
		{Path: "bad.go", OldPath: "bad.go", Status: analysis.Modified, LinesBefore: 100, Added: 1, Deleted: 1, Symbols: symbols.Verdict{
			Removed: []symbols.Ref{{Name: "F", Kind: "func"}}, Note: "the new version does not parse (line 3: expected ')'); its definitions cannot be read"}},
		{Path: "store/io.py", Status: analysis.Added, Added: 40},
	}, analysis.Defaults)
}

// The code-aware rule in the review: what was removed heads the file's warning,
// what moved or was renamed is information, and so is a file not compared.
func TestSymbolsInTheReview(t *testing.T) {
	var buf bytes.Buffer
	pr := &Printer{W: &buf, Width: 100}
	rep := symbolsReport()
	pr.Summary(rep)
	for _, f := range rep.FlaggedFiles() {
		pr.Warning(f)
	}
	out := buf.String()
	for _, want := range []string{
		" big.py      | 60 " + strings.Repeat("-", 60) + "  REMOVED\n",
		"WARNING: 3 of 6 files need review",
		"  REMOVED: big.py: def load_state, class Cache\n",
		"  DELETED: state.py\n",
		"REMOVED: bad.go: func F\n",
		"Definitions moved or renamed, nothing lost:\n",
		"  def save moved from state.py to store/io.py\n",
		"  def helper renamed to assist in util.py\n",
		"Definitions not compared:\n",
		"  broken.py: the old version does not parse (line 3: a string is not closed); only the share of changed lines is judged\n",
		// above each flagged file's diff
		"REMOVED: big.py: def load_state, class Cache\n  lines before: 2000, after: 1940 (+0 -60, change ratio 0.03)\n",
		"DELETED: state.py\nREMOVED: state.py: def keep\n  def save moved to store/io.py\n  lines before: 40",
		"REMOVED: bad.go: func F\n  the new version does not parse (line 3: expected ')'); its definitions cannot be read\n  lines before",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "renamed to assist\n  lines") || strings.Count(out, "bad.go: the new version") != 0 {
		t.Errorf("a file's own notes appear under its warning only, and a file not flagged has none:\n%s", out)
	}
}

func TestSymbolsHostileNames(t *testing.T) {
	var buf bytes.Buffer
	evil := "x\x1b[2J\u202e.py"
	rep := analysis.Build("t", "b", []analysis.Change{{Path: evil, Status: analysis.Modified, LinesBefore: 100, Deleted: 1, Symbols: symbols.Verdict{
		Removed: []symbols.Ref{{Name: "f\x1b[1A", Kind: "def"}}, Moved: []symbols.Move{{Name: "g", Kind: "def", To: evil}},
		Renamed: []symbols.Rename{{Name: "h", Kind: "def", NewName: "i\r"}}, Note: "n\x1b"}}}, analysis.Defaults)
	pr := &Printer{W: &buf, Width: 80}
	pr.Summary(rep)
	pr.Warning(rep.Files[0])
	if out := buf.String(); strings.ContainsAny(out, "\x1b\r\u202e") {
		t.Errorf("raw control characters reached the terminal: %q", out)
	}
}

// Issue 20: a file with characters a terminal does not show, or whose diff is
// over the limit, is tagged and warned about, its headline or a line of its
// own; several flags on one file are all said.
func TestUnseenInTheReview(t *testing.T) {
	rules := analysis.Defaults
	rules.MaxShownBytes = 4096
	rep := analysis.Build("t", "b", []analysis.Change{
		{Path: "src/auth.py", OldPath: "src/auth.py", Status: analysis.Modified, LinesBefore: 20, Added: 2, Deleted: 1, Invisible: 2, Shown: 300},
		{Path: "vendor/big.js", Status: analysis.Added, Added: 1, Shown: 5000},
		{Path: "state.py", OldPath: "state.py", Status: analysis.Modified, LinesBefore: 270, Added: 56, Deleted: 270, Invisible: 1, Shown: 9000},
	}, rules)
	var buf bytes.Buffer
	pr := &Printer{W: &buf, Width: 100}
	pr.Summary(rep)
	for _, f := range rep.FlaggedFiles() {
		pr.Warning(f)
	}
	out := buf.String()
	for _, want := range []string{
		"INVISIBLE\n", "NOT SHOWN\n", "REPLACED NOT SHOWN INVISIBLE\n",
		"WARNING: 3 of 3 files need review",
		`  INVISIBLE: src/auth.py: 2 characters a terminal does not show (shown as \u{…})` + "\n",
		"  NOT SHOWN: vendor/big.js: 5000 bytes of diff, over the limit of 4096 ([diffgate] max_shown_bytes): it needs an APPROVE of its own\n",
		"REPLACED: state.py (270 → 56 lines)\n  NOT SHOWN: state.py: 9000 bytes of diff, over the limit of 4096 ([diffgate] max_shown_bytes): it needs an APPROVE of its own\n" +
			`  INVISIBLE: state.py: 1 character a terminal does not show (shown as \u{…})` + "\n  lines before: 270",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// A diff line is printed whole: escaped, and folded at the screen's width
// with … marks, the pieces in the line's colour; joined, they are the line.
func TestDiffLineWhole(t *testing.T) {
	line := "+PRIMES = [" + strings.Repeat("7919, ", 760) + "]; __import__('os').system('x')  # ok\ufe00"
	var buf bytes.Buffer
	pr := &Printer{W: &buf, P: term.NewPalette(true), Width: 80}
	pr.diffLine(gitx.Line{Kind: gitx.LineAdded, Text: []byte(line)}, nil)
	var joined strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "\x1b[32m") {
			t.Fatalf("piece %d is not green: %q", i, l)
		}
		l = strings.TrimSuffix(strings.TrimPrefix(l, "\x1b[32m"), "\x1b[0m")
		if i > 0 {
			var ok bool
			if l, ok = strings.CutPrefix(l, term.FoldMark); !ok {
				t.Fatalf("piece %d has no mark: %q", i, l)
			}
		}
		joined.WriteString(l)
	}
	if want := strings.Replace(line, "\ufe00", `\u{fe00}`, 1); joined.String() != want {
		t.Errorf("the pieces joined:\n%q\nwant\n%q", joined.String(), want)
	}
	if strings.Contains(buf.String(), "more bytes") {
		t.Error("a line was cut")
	}
}

// A file name of wide characters takes two columns each: the stat's line,
// its tag at the end, stays within the screen.
func TestStatWideNames(t *testing.T) {
	wide := strings.Repeat("日本語", 20) + ".py"
	rep := analysis.Build("t", "b", []analysis.Change{
		{Path: wide, Status: analysis.Modified, LinesBefore: 10, Added: 9, Deleted: 9},
		{Path: "a.py", Status: analysis.Modified, LinesBefore: 10, Added: 1},
	}, analysis.Defaults)
	var buf bytes.Buffer
	pr := &Printer{W: &buf, Width: 80}
	pr.Stat(rep)
	lines := strings.Split(buf.String(), "\n")
	for _, l := range lines[:2] {
		if w := term.Cols(l); w > 80 {
			t.Errorf("a stat line is %d columns wide on 80: %q", w, l)
		}
	}
	if !strings.HasSuffix(lines[0], "CHANGED 180%") || !strings.Contains(lines[0], "...") {
		t.Errorf("the wide name's line: %q", lines[0])
	}
	if term.Cols(lines[0][:strings.Index(lines[0], "|")]) != term.Cols(lines[1][:strings.Index(lines[1], "|")]) {
		t.Errorf("the bars do not line up:\n%s\n%s", lines[0], lines[1])
	}
}
