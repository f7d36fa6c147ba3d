package analysis

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-tdd/git-tdd/internal/symbols"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		id     string // seed 000 test id, where one applies
		name   string
		in     Change
		ratio  float64
		after  int64
		review bool
		repl   bool
		reason Reason
	}{
		{"T020", "100 to 50 lines, 50 deleted, is exactly 0.5", Change{Status: Modified, LinesBefore: 100, Deleted: 50}, 0.5, 50, false, false, ""},
		{"T030", "270 to 56 lines is a replacement (PR #165)", Change{Status: Modified, LinesBefore: 270, Added: 56, Deleted: 270}, 1.2074, 56, true, true, ReasonReplaced},
		{"T040", "0.6 is over the threshold", Change{Status: Modified, LinesBefore: 100, Added: 30, Deleted: 30}, 0.6, 100, true, false, ReasonChanged},
		{"T040", "just over 0.5 is flagged", Change{Status: Modified, LinesBefore: 1000, Added: 251, Deleted: 250}, 0.501, 1001, true, false, ReasonChanged},
		{"T040", "just under 0.5 is not", Change{Status: Modified, LinesBefore: 1000, Added: 250, Deleted: 249}, 0.499, 1001, false, false, ""},
		{"T030", "ratio over 0.8 but not shrunk below half is no replacement", Change{Status: Modified, LinesBefore: 100, Added: 45, Deleted: 45}, 0.9, 100, true, false, ReasonChanged},
		{"T030", "shrunk below half but ratio 0.8 exactly is no replacement", Change{Status: Modified, LinesBefore: 100, Added: 0, Deleted: 80}, 0.8, 20, true, false, ReasonChanged},
		{"T030", "lines_after exactly half is no replacement", Change{Status: Modified, LinesBefore: 100, Added: 50, Deleted: 100}, 1.5, 50, true, false, ReasonChanged},
		{"", "added file is never flagged", Change{Status: Added, Added: 300}, 300, 300, false, false, ""},
		{"", "added empty file", Change{Status: Added}, 0, 0, false, false, ""},
		{"", "deleted file always flagged", Change{Status: Deleted, LinesBefore: 10, Deleted: 10}, 1, 0, true, false, ReasonDeleted},
		{"", "deleted empty file still flagged", Change{Status: Deleted}, 0, 0, true, false, ReasonDeleted},
		{"", "mode-only change has ratio 0", Change{Status: Modified, ModeChanged: true, LinesBefore: 10}, 0, 10, false, false, ""},
		{"", "pure rename has ratio 0", Change{Status: Renamed, OldPath: "a", LinesBefore: 40}, 0, 40, false, false, ""},
		{"", "rename with small edit", Change{Status: Renamed, OldPath: "a", LinesBefore: 40, Added: 1, Deleted: 1}, 0.05, 40, false, false, ""},
		{"", "copy is never flagged", Change{Status: Copied, OldPath: "a", LinesBefore: 10, Added: 10, Deleted: 10}, 2, 10, false, false, ""},
		{"", "modified binary is flagged, counts 0", Change{Status: Modified, Binary: true, LinesBefore: 9, Added: 3}, 0, 0, true, false, ReasonBinary},
		{"", "added binary is not flagged", Change{Status: Added, Binary: true}, 0, 0, false, false, ""},
		{"", "deleted binary is flagged as deleted", Change{Status: Deleted, Binary: true}, 0, 0, true, false, ReasonDeleted},
		{"", "submodule moved is flagged", Change{Status: Modified, Submodule: true, Added: 1, Deleted: 1}, 0, 0, true, false, ReasonSubmodule},
		{"", "submodule added is not", Change{Status: Added, Submodule: true, Added: 1}, 0, 0, false, false, ""},
		{"", "empty file gains lines: ratio over max(before,1)", Change{Status: Modified, Added: 3}, 3, 3, true, false, ReasonChanged},
		{"", "type change file to symlink", Change{Status: TypeChanged, LinesBefore: 2, Added: 1, Deleted: 2}, 1.5, 1, true, false, ReasonChanged},
		{"T030", "type change that loses most lines is a replacement", Change{Status: TypeChanged, LinesBefore: 10, Added: 1, Deleted: 10}, 1.1, 1, true, true, ReasonReplaced},
		{"", "a converted checkout is flagged whatever its ratio", Change{Status: Modified, LinesBefore: 20, Added: 1, Deleted: 1, Converted: []string{"working-tree-encoding=SHIFT_JIS"}}, 0.1, 20, true, false, ReasonConverted},
		{"", "a converted file added is flagged", Change{Status: Added, Added: 3, Converted: []string{"working-tree-encoding=SHIFT_JIS"}}, 3, 3, true, false, ReasonConverted},
		{"", "a converted binary is flagged as converted", Change{Status: Modified, Binary: true, Converted: []string{"filter=lfs"}}, 0, 0, true, false, ReasonConverted},
		{"", "a replacement stays one when converted", Change{Status: Modified, LinesBefore: 270, Added: 56, Deleted: 270, Converted: []string{"working-tree-encoding=SHIFT_JIS"}}, 1.2074, 56, true, true, ReasonReplaced},
		{"", "a .gitattributes added is flagged", Change{Status: Added, Added: 1, AttributesFile: true}, 1, 1, true, false, ReasonAttributes},
		{"", "a .gitattributes modified a little is flagged", Change{Status: Modified, LinesBefore: 10, Added: 1, AttributesFile: true}, 0.1, 11, true, false, ReasonAttributes},
		{"", "a .gitattributes deleted is deleted", Change{Status: Deleted, LinesBefore: 1, Deleted: 1, AttributesFile: true}, 1, 0, true, false, ReasonDeleted},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.id+" "+tt.name), func(t *testing.T) {
			tt.in.Path = "f"
			got := Analyze(tt.in, Defaults)
			if got.ChangeRatio != tt.ratio {
				t.Errorf("change_ratio = %v, want %v", got.ChangeRatio, tt.ratio)
			}
			if got.LinesAfter != tt.after {
				t.Errorf("lines_after = %d, want %d", got.LinesAfter, tt.after)
			}
			if len(got.Converted) != len(tt.in.Converted) || got.Converted == nil {
				t.Errorf("converted = %#v, want %q", got.Converted, tt.in.Converted)
			}
			if got.RequiresReview != tt.review || got.IsReplacement != tt.repl || got.Reason != tt.reason {
				t.Errorf("requires_review=%v is_replacement=%v reason=%q, want %v %v %q",
					got.RequiresReview, got.IsReplacement, got.Reason, tt.review, tt.repl, tt.reason)
			}
		})
	}
}

func TestAnalyzeConfiguredThreshold(t *testing.T) {
	c := Change{Path: "f", Status: Modified, LinesBefore: 100, Added: 30, Deleted: 30}
	if got := Analyze(c, Rules{ChangeRatioThreshold: 0.7, ReplacementRatio: 0.8}); got.RequiresReview {
		t.Errorf("0.6 flagged under a 0.7 threshold")
	}
	if got := Analyze(c, Rules{ChangeRatioThreshold: 0.1, ReplacementRatio: 0.8}); !got.RequiresReview {
		t.Errorf("0.6 not flagged under a 0.1 threshold")
	}
}

// T080: no staged changes gives an empty report that JSON-encodes as empty lists.
func TestT080NoChanges(t *testing.T) {
	rep := Build("tree", "base", nil, Defaults)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tree":"tree","base":"base","files":[],"flagged":[],"summary":{"files":0,"added":0,"deleted":0}}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// T090: a multi-file report lists every file, flags the right ones and totals them.
func TestT090Build(t *testing.T) {
	rep := Build("t", "b", []Change{
		{Path: "keep.py", Status: Modified, LinesBefore: 100, Added: 2, Deleted: 1},
		{Path: "src/state.py", Status: Modified, LinesBefore: 270, Added: 56, Deleted: 270},
		{Path: "old.py", Status: Deleted, LinesBefore: 10, Deleted: 10},
	}, Defaults)
	if len(rep.Files) != 3 || strings.Join(rep.Flagged, ",") != "src/state.py,old.py" {
		t.Fatalf("files %d flagged %v", len(rep.Files), rep.Flagged)
	}
	if rep.Summary != (Summary{Files: 3, Added: 58, Deleted: 281}) {
		t.Errorf("summary %+v", rep.Summary)
	}
	if n := len(rep.FlaggedFiles()); n != 2 {
		t.Errorf("FlaggedFiles: %d", n)
	}
}

func TestNonUTF8PathsKeepTheirBytes(t *testing.T) {
	p := "caf\xe9.txt"
	f := Analyze(Change{Path: p, OldPath: p, Status: Modified}, Defaults)
	raw, err := base64.StdEncoding.DecodeString(f.PathBase64)
	if err != nil || string(raw) != p || f.OldPathBase64 != f.PathBase64 {
		t.Errorf("path_base64 %q does not round-trip", f.PathBase64)
	}
	if g := Analyze(Change{Path: "ok.txt", Status: Modified}, Defaults); g.PathBase64 != "" {
		t.Errorf("a UTF-8 path got path_base64")
	}
}

func FuzzAnalyze(f *testing.F) {
	f.Add(int64(100), int64(0), int64(50), false)
	f.Add(int64(270), int64(56), int64(270), false)
	f.Fuzz(func(t *testing.T, before, added, deleted int64, binary bool) {
		if before < 0 || added < 0 || deleted < 0 || deleted > before || before > 1<<40 || added > 1<<40 {
			return
		}
		got := Analyze(Change{Path: "f", Status: Modified, LinesBefore: before, Added: added, Deleted: deleted, Binary: binary}, Defaults)
		if got.IsReplacement && !got.RequiresReview {
			t.Fatalf("a replacement must require review: %+v", got)
		}
		if !binary && got.LinesAfter != before+added-deleted {
			t.Fatalf("lines_after %d != %d+%d-%d", got.LinesAfter, before, added, deleted)
		}
		if !binary && (Ratio(added, deleted, before) > 0.5) != got.RequiresReview {
			t.Fatalf("requires_review %v with ratio %v", got.RequiresReview, got.ChangeRatio)
		}
	})
}

// The code-aware rule: a file that lost a definition needs review whatever its
// ratio; moved and renamed ones are information.
func TestAnalyzeSymbols(t *testing.T) {
	lost := symbols.Verdict{Removed: []symbols.Ref{{Name: "load_state", Kind: "def"}, {Name: "Cache", Kind: "class"}}}
	moved := symbols.Verdict{Moved: []symbols.Move{{Name: "f", Kind: "def", To: "b.py"}}, Renamed: []symbols.Rename{{Name: "g", Kind: "def", NewName: "h"}}}
	tests := []struct {
		name   string
		in     Change
		review bool
		reason Reason
	}{
		{"three functions removed at 3%", Change{Status: Modified, LinesBefore: 2000, Deleted: 60, Symbols: lost}, true, ReasonRemovedDefinitions},
		{"over the ratio too: the removal says more", Change{Status: Modified, LinesBefore: 100, Added: 30, Deleted: 30, Symbols: lost}, true, ReasonRemovedDefinitions},
		{"a replacement stays a replacement", Change{Status: Modified, LinesBefore: 270, Added: 56, Deleted: 270, Symbols: lost}, true, ReasonReplaced},
		{"a deleted file stays deleted", Change{Status: Deleted, LinesBefore: 10, Deleted: 10, Symbols: lost}, true, ReasonDeleted},
		{"a renamed file that lost one", Change{Status: Renamed, OldPath: "a.py", LinesBefore: 100, Added: 1, Deleted: 3, Symbols: lost}, true, ReasonRemovedDefinitions},
		{"moved and renamed are not flagged", Change{Status: Modified, LinesBefore: 2000, Deleted: 60, Symbols: moved}, false, ReasonNone},
		{"a note alone is not flagged", Change{Status: Modified, LinesBefore: 10, Added: 1, Symbols: symbols.Verdict{Note: "the old version does not parse"}}, false, ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Path = "m.py"
			got := Analyze(tt.in, Defaults)
			if got.RequiresReview != tt.review || got.Reason != tt.reason {
				t.Errorf("requires_review=%v reason=%q, want %v %q", got.RequiresReview, got.Reason, tt.review, tt.reason)
			}
			if len(got.RemovedSymbols) != len(tt.in.Symbols.Removed) || len(got.MovedSymbols) != len(tt.in.Symbols.Moved) ||
				len(got.RenamedSymbols) != len(tt.in.Symbols.Renamed) || got.SymbolsNote != tt.in.Symbols.Note {
				t.Errorf("the lists are not carried: %+v", got)
			}
		})
	}
	if f := Analyze(Change{Path: "a.txt", Status: Modified, LinesBefore: 3, Added: 1}, Defaults); f.RemovedSymbols == nil || f.MovedSymbols == nil || f.RenamedSymbols == nil {
		t.Errorf("the lists are empty, never null, in JSON: %+v", f)
	}
}

// Issue 20: characters a terminal does not show among the added lines flag a
// file whatever else it is, added ones too; so does a diff over the shown
// limit, which the review does not print. Neither concerns what a review does
// not show as lines (binary content, a submodule).
func TestAnalyzeUnseen(t *testing.T) {
	const limit = 1000
	rules := Defaults
	rules.MaxShownBytes = limit
	tests := []struct {
		name      string
		in        Change
		review    bool
		reason    Reason
		invisible int64
		notShown  bool
	}{
		{"two invisible in a small change", Change{Status: Modified, LinesBefore: 20, Added: 2, Deleted: 1, Invisible: 2, Shown: 300}, true, ReasonInvisible, 2, false},
		{"an added file with one", Change{Status: Added, Added: 5, Invisible: 1, Shown: 100}, true, ReasonInvisible, 1, false},
		{"a copy with one", Change{Status: Copied, OldPath: "a.py", LinesBefore: 5, Added: 1, Invisible: 1, Shown: 100}, true, ReasonInvisible, 1, false},
		{"none: not flagged", Change{Status: Modified, LinesBefore: 20, Added: 2, Deleted: 1, Shown: 300}, false, ReasonNone, 0, false},
		{"exactly the limit is shown", Change{Status: Added, Added: 5, Shown: limit}, false, ReasonNone, 0, false},
		{"one byte over is not", Change{Status: Added, Added: 5, Shown: limit + 1}, true, ReasonNotShown, 0, true},
		{"not shown says more than invisible", Change{Status: Modified, LinesBefore: 100, Added: 1, Invisible: 3, Shown: 5000}, true, ReasonNotShown, 3, true},
		{"a replacement stays a replacement", Change{Status: Modified, LinesBefore: 270, Added: 56, Deleted: 270, Invisible: 1, Shown: 5000}, true, ReasonReplaced, 1, true},
		{"a deleted file: nothing added", Change{Status: Deleted, LinesBefore: 10, Deleted: 10, Shown: 5000}, true, ReasonDeleted, 0, true},
		{"binary content is not shown as lines", Change{Status: Modified, Binary: true, Invisible: 7, Shown: 5000}, true, ReasonBinary, 0, false},
		{"an added binary stays unflagged", Change{Status: Added, Binary: true, Invisible: 7, Shown: 5000}, false, ReasonNone, 0, false},
		{"text with a NUL is shown, so measured", Change{Status: Added, Binary: true, Textual: true, Invisible: 1, Shown: 5000}, true, ReasonNotShown, 1, true},
		{"a submodule", Change{Status: Modified, Submodule: true, Invisible: 1, Shown: 5000}, true, ReasonSubmodule, 0, false},
		{"a name that reads as another", Change{Status: Added, Added: 5, Confusable: 2, Shown: 100}, true, ReasonConfusable, 0, false},
		{"a checkout cut", Change{Status: Modified, LinesBefore: 100, Added: 1, Deleted: 1, Shown: 100, Converted: []string{"ident"},
			Checkout: &Checkout{Text: []byte("abc"), Size: 5000}}, true, ReasonConverted, 0, true},
		{"a checkout whole", Change{Status: Modified, LinesBefore: 100, Added: 1, Deleted: 1, Shown: 100, Converted: []string{"ident"},
			Checkout: &Checkout{Text: []byte("abc"), Size: 3}}, true, ReasonConverted, 0, false},
		{"a binary checkout is not shown as lines", Change{Status: Modified, LinesBefore: 100, Added: 1, Deleted: 1, Shown: 100, Converted: []string{"filter=lfs"},
			Checkout: &Checkout{Text: []byte("\x89PNG\x00"), Size: 5000}}, true, ReasonConverted, 0, false},
		{"files converted and not checked out", Change{Status: Added, Added: 1, Shown: 10, AttributesFile: true,
			Untouched: []Untouched{{Path: "a.py"}, {Path: "b.py", Checkout: &Checkout{Text: []byte("x"), Size: 1}}}}, true, ReasonAttributes, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Path = "src/auth.py"
			got := Analyze(tt.in, rules)
			if got.RequiresReview != tt.review || got.Reason != tt.reason || got.Invisible != tt.invisible || got.NotShown != tt.notShown {
				t.Errorf("requires_review=%v reason=%q invisible=%d not_shown=%v, want %v %q %d %v",
					got.RequiresReview, got.Reason, got.Invisible, got.NotShown, tt.review, tt.reason, tt.invisible, tt.notShown)
			}
		})
	}
	if f := Analyze(Change{Path: "big", Status: Added, Added: 1, Shown: 1 << 40}, Rules{ChangeRatioThreshold: 0.5, ReplacementRatio: 0.8}); f.NotShown {
		t.Error("MaxShownBytes 0 is no limit")
	}
	rep := Build("t", "b", []Change{{Path: "a", Status: Added, Shown: limit + 1}, {Path: "b", Status: Added, Shown: 1}}, rules)
	if ns := rep.NotShown(); len(ns) != 1 || ns[0].Path != "a" || rep.MaxShownBytes != limit || len(rep.Flagged) != 1 {
		t.Errorf("NotShown %+v, limit %d, flagged %v", ns, rep.MaxShownBytes, rep.Flagged)
	}
	f := Analyze(Change{Path: "a", Status: Added, AttributesFile: true, Untouched: []Untouched{{Path: "x"}, {Path: "y"}}}, rules)
	if f.UnseenFiles != 2 || f.DiffOver || f.CheckoutOver {
		t.Errorf("unseen %d, diff over %v, checkout over %v", f.UnseenFiles, f.DiffOver, f.CheckoutOver)
	}
}
