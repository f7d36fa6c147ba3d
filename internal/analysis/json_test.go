package analysis

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/git-tdd/git-tdd/internal/symbols"
)

// WriteJSON is the same document encoding/json writes.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	reps := []*Report{
		Build("t", "b", nil, Defaults),
		Build("tree", "base", []Change{
			{Path: "a \"q\"\n\t<>&\u2028.py", Status: Modified, LinesBefore: 3, Added: 1, Deleted: 2},
			{Path: "caf\xe9", OldPath: "old\x01", Status: Renamed, LinesBefore: 270, Added: 56, Deleted: 270},
			{Path: "gone", OldPath: "gone", Status: Deleted, LinesBefore: 1, Deleted: 1},
			{Path: "b.bin", OldPath: "b.bin", Status: Modified, Binary: true},
			{Path: "auth.py", OldPath: "auth.py", Status: Modified, LinesBefore: 20, Added: 2, Invisible: 2, Shown: 2 << 20},
			{Path: "x.py", OldPath: "x.py", Status: Modified, LinesBefore: 20, Added: 1, Deleted: 1,
				Converted: []string{"working-tree-encoding=SHIFT_JIS", "filter=a\"<b> from .git/info/attributes"},
				Checkout:  &Checkout{Text: []byte("x = \"\\\"\n"), Size: 8}},
			{Path: ".gitattributes", OldPath: ".gitattributes", Status: Modified, LinesBefore: 1, Added: 1, AttributesFile: true},
			{Path: "m.py", OldPath: "m.py", Status: Modified, LinesBefore: 2000, Deleted: 60, Symbols: symbols.Verdict{
				Removed: []symbols.Ref{{Name: "load_state", Kind: "def"}, {Name: "Cache\"<", Kind: "class"}},
				Moved:   []symbols.Move{{Name: "f", Kind: "def", To: "caf\xe9/b.py"}},
				Renamed: []symbols.Rename{{Name: "g", Kind: "def", NewName: "h"}},
				Note:    "the new version does not parse (line 1: \"x\")",
			}},
		}, Defaults),
	}
	for _, rep := range reps {
		var got bytes.Buffer
		if err := rep.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(rep)
		var g, w any
		if err := json.Unmarshal(got.Bytes(), &g); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, got.Bytes())
		}
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("documents differ:\n got %s\nwant %s", got.Bytes(), want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("\x00\x1f\"\\<>&\u2028\u2029\xff\xfe日本\b\f")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
