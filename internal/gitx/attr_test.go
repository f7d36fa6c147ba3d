package gitx

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCheckAttr(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]Attrs
		err  bool
	}{
		{"empty", "", map[string]Attrs{}, false},
		{"states and values", "a.py\x00text\x00set\x00a.py\x00eol\x00crlf\x00b c\n.txt\x00working-tree-encoding\x00unspecified\x00b c\n.txt\x00ident\x00unset\x00",
			map[string]Attrs{"a.py": {"text": "set", "eol": "crlf"}, "b c\n.txt": {"working-tree-encoding": "unspecified", "ident": "unset"}}, false},
		{"a value with spaces and a NUL-free escape", "x\x00filter\x00a b\x1b\x00", map[string]Attrs{"x": {"filter": "a b\x1b"}}, false},
		{"record cut short", "a.py\x00text\x00set", nil, true},
		{"no attribute name", "a.py\x00\x00set\x00", nil, true},
		{"no path", "\x00text\x00set\x00", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCheckAttr([]byte(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConversions(t *testing.T) {
	none := ConvertConfig{AutoCRLF: "false"}
	crlf := ConvertConfig{AutoCRLF: "true"}
	eolCRLF := ConvertConfig{AutoCRLF: "false", EOL: "crlf"}
	input := ConvertConfig{AutoCRLF: "input", EOL: "crlf"}
	lfs := ConvertConfig{AutoCRLF: "false", Filters: map[string]bool{"lfs": true}}
	tests := []struct {
		name  string
		attrs Attrs
		cfg   ConvertConfig
		want  []string
	}{
		{"nothing set", Attrs{}, none, nil},
		{"all unspecified", Attrs{"text": "unspecified", "eol": "unspecified", "ident": "unspecified", "filter": "unspecified", "working-tree-encoding": "unspecified"}, none, nil},
		{"working-tree-encoding", Attrs{"working-tree-encoding": "SHIFT_JIS"}, none, []string{"working-tree-encoding=SHIFT_JIS"}},
		{"working-tree-encoding UTF-8 is no conversion", Attrs{"working-tree-encoding": "utf8"}, none, nil},
		{"working-tree-encoding set without a name fails the checkout", Attrs{"working-tree-encoding": "set"}, none, []string{"working-tree-encoding"}},
		{"ident", Attrs{"ident": "set"}, none, []string{"ident"}},
		{"-ident", Attrs{"ident": "unset"}, none, nil},
		{"filter with a driver", Attrs{"filter": "lfs"}, lfs, []string{"filter=lfs"}},
		{"filter without a driver passes the blob", Attrs{"filter": "other"}, lfs, nil},
		{"eol=crlf", Attrs{"eol": "crlf"}, none, []string{"eol=crlf"}},
		{"text=auto eol=crlf", Attrs{"text": "auto", "eol": "crlf"}, none, []string{"text=auto", "eol=crlf"}},
		{"eol=crlf on binary", Attrs{"text": "unset", "eol": "crlf"}, none, nil},
		{"eol=crlf with -crlf", Attrs{"crlf": "unset", "eol": "crlf"}, none, nil},
		{"eol=lf", Attrs{"text": "set", "eol": "lf"}, crlf, nil},
		{"text here", Attrs{"text": "set"}, none, nil},
		{"text with core.autocrlf", Attrs{"text": "set"}, crlf, []string{"text", "core.autocrlf=true"}},
		{"text=auto with core.eol=crlf", Attrs{"text": "auto"}, eolCRLF, []string{"text=auto", "core.eol=crlf"}},
		{"core.autocrlf=input overrides core.eol", Attrs{"text": "set"}, input, nil},
		{"no text attribute, core.autocrlf", Attrs{}, crlf, []string{"core.autocrlf=true"}},
		{"no text attribute, core.eol alone", Attrs{}, eolCRLF, nil},
		{"crlf attribute stands in for text", Attrs{"crlf": "set"}, crlf, []string{"crlf", "core.autocrlf=true"}},
		{"crlf=input", Attrs{"crlf": "input"}, crlf, nil},
		{"text=nonsense is undefined: crlf decides", Attrs{"text": "nonsense", "crlf": "unset"}, crlf, nil},
		{"all at once", Attrs{"eol": "crlf", "ident": "set", "filter": "lfs", "working-tree-encoding": "UTF-16"}, lfs,
			[]string{"eol=crlf", "ident", "filter=lfs", "working-tree-encoding=UTF-16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Conversions(tt.attrs, tt.cfg); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Conversions(%v, %+v) = %q, want %q", tt.attrs, tt.cfg, got, tt.want)
			}
		})
	}
}

func TestParseConvertConfig(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ConvertConfig
	}{
		{"nothing", "", ConvertConfig{AutoCRLF: "false", Filters: map[string]bool{}}},
		{"later wins", "core.autocrlf\ntrue\x00core.autocrlf\ninput\x00core.eol\nCRLF\x00",
			ConvertConfig{AutoCRLF: "input", EOL: "crlf", Filters: map[string]bool{}}},
		{"a key alone is true", "core.autocrlf\x00", ConvertConfig{AutoCRLF: "true", Filters: map[string]bool{}}},
		{"numbers", "core.autocrlf\n0\x00", ConvertConfig{AutoCRLF: "false", Filters: map[string]bool{}}},
		{"yes", "core.autocrlf\nYes\x00", ConvertConfig{AutoCRLF: "true", Filters: map[string]bool{}}},
		{"filters", "filter.lfs.process\ngit-lfs filter-process\x00filter.a.b.smudge\nsed s/a/b/\x00filter.req.required\ntrue\x00filter.off.required\nfalse\x00",
			ConvertConfig{AutoCRLF: "false", Filters: map[string]bool{"lfs": true, "a.b": true, "req": true}}},
		{"attributes file", "core.attributesfile\n~/attrs\x00", ConvertConfig{AutoCRLF: "false", AttributesFile: "~/attrs", Filters: map[string]bool{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseConvertConfig([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseCheckoutTemp(t *testing.T) {
	got, err := ParseCheckoutTemp([]byte(".merge_file_a1\tsrc/x.py\x00.merge_file_b2\tname with\ttab\nand newline\x00"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"src/x.py": ".merge_file_a1", "name with\ttab\nand newline": ".merge_file_b2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"no tab\x00", "\tpath\x00", "../escape\tpath\x00", "a b\tpath\x00"} {
		if _, err := ParseCheckoutTemp([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestIsAttributesFile(t *testing.T) {
	for p, want := range map[string]bool{
		".gitattributes": true, "a/b/.gitattributes": true, "x.gitattributes": false,
		"a/.gitattributes/b": false, ".gitattributesx": false, "": false,
		".GITATTRIBUTES": true, "src/.GitAttributes": true,
	} {
		if got := IsAttributesFile(p); got != want {
			t.Errorf("IsAttributesFile(%q) = %v", p, got)
		}
	}
}

func TestMayConvert(t *testing.T) {
	for in, want := range map[string]bool{
		"": false,
		"* text=auto\n*.png binary\n*.md -diff linguist-documentation\n": false,
		"*.sh text eol=lf\n":                     true, // a word, not a value, is looked at
		"*.sh EOL=crlf\n":                        true,
		"*.c ident\n":                            true,
		"*.cfg filter=hide\n":                    true,
		"*.py working-tree-encoding=SHIFT_JIS\n": true,
		"[attr]sjis working-tree-encoding=SHIFT_JIS\n*.py sjis\n": true,
	} {
		if got := MayConvert([]byte(in)); got != want {
			t.Errorf("MayConvert(%q) = %v", in, got)
		}
	}
	if !MayConvert([]byte("* text\n"), []byte("*.c ident\n")) {
		t.Errorf("the second file is not looked at")
	}
}

func TestCaseMayMatter(t *testing.T) {
	tests := []struct {
		attrs string
		paths []string
		want  bool
	}{
		{"*.py working-tree-encoding=SHIFT_JIS\n", []string{"app.py", "src/x.py"}, false},
		{"*.PY working-tree-encoding=SHIFT_JIS\n", []string{"app.py"}, true},
		{"*.py working-tree-encoding=SHIFT_JIS\n", []string{"APP.PY"}, true},
		{"# A comment\n[attr]Sjis working-tree-encoding=SHIFT_JIS\n*.py Sjis\n", []string{"a.py"}, false},
		{"  src/Main/*.py eol=crlf\n", []string{"src/main/a.py"}, true},
		{"\"*.PY\" ident\n", []string{"a.py"}, true},
	}
	for _, tt := range tests {
		if got := CaseMayMatter([][]byte{[]byte(tt.attrs)}, tt.paths); got != tt.want {
			t.Errorf("CaseMayMatter(%q, %q) = %v", tt.attrs, tt.paths, got)
		}
	}
}

// ParseCheckAttr reads back what it is given, in git's -z form, and never
// panics on anything else.
func FuzzParseCheckAttr(f *testing.F) {
	f.Add("a.py", "working-tree-encoding", "SHIFT_JIS")
	f.Add("new\nline", "text", "unset")
	f.Fuzz(func(t *testing.T, path, name, value string) {
		ParseCheckAttr([]byte(path + name + value))
		rec := path + "\x00" + name + "\x00" + value + "\x00"
		got, err := ParseCheckAttr([]byte(rec))
		if path == "" || name == "" || strings.ContainsRune(path+name+value, 0) {
			return
		}
		if err != nil || got[path][name] != value {
			t.Fatalf("%q: %v, %v", rec, got, err)
		}
	})
}
