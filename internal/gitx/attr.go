package gitx

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// CheckoutAttrs are the attributes with which a checkout writes something
// other than the blob: line-ending conversion (text, crlf, eol), $Id$
// expansion (ident), a smudge command (filter), re-encoding
// (working-tree-encoding). export-subst is left out: only git archive applies it.
var CheckoutAttrs = []string{"text", "crlf", "eol", "ident", "filter", "working-tree-encoding"}

// AttributesFile is the name of the files in a tree that set attributes.
const AttributesFile = ".gitattributes"

// IsAttributesFile reports whether path is a .gitattributes file, at the
// top or in a directory, in any case: on a case-insensitive file system
// (macOS, Windows) a checkout writes .GITATTRIBUTES where git reads
// .gitattributes.
func IsAttributesFile(path string) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	return strings.EqualFold(base, AttributesFile)
}

// Attrs are the attributes of one path as git check-attr reports them:
// "set", "unset", "unspecified" or the value given.
type Attrs map[string]string

// ParseCheckAttr parses `git check-attr -z` output: path, attribute and
// value, each terminated by NUL, repeated.
func ParseCheckAttr(b []byte) (map[string]Attrs, error) {
	out := map[string]Attrs{}
	for len(b) > 0 {
		var f [3][]byte
		for i := range f {
			end := bytes.IndexByte(b, 0)
			if end < 0 {
				return nil, fmt.Errorf("check-attr: record without its NUL: %q", clip(b))
			}
			f[i], b = b[:end], b[end+1:]
		}
		if len(f[0]) == 0 || len(f[1]) == 0 {
			return nil, fmt.Errorf("check-attr: malformed record %q %q %q", clip(f[0]), clip(f[1]), clip(f[2]))
		}
		path := string(f[0])
		if out[path] == nil {
			out[path] = Attrs{}
		}
		out[path][string(f[1])] = string(f[2])
	}
	return out, nil
}

// specified reports whether check-attr gave the attribute any state.
func specified(v string) bool { return v != "" && v != "unspecified" }

// ConvertConfig is the configuration that decides, with the attributes, what
// a checkout converts.
type ConvertConfig struct {
	AutoCRLF string          // core.autocrlf: "true", "input" or "false"
	EOL      string          // core.eol: "lf", "crlf" or "native" (LF here)
	Filters  map[string]bool // filter drivers a checkout goes through: a smudge or process command, or required
	// AttributesFile is core.attributesFile as configured ("" when it is not).
	AttributesFile string
}

// WritesCRLF reports whether text files check out with CRLF line endings
// under this configuration: git's text_eol_is_crlf.
func (c ConvertConfig) WritesCRLF() bool {
	switch c.AutoCRLF {
	case "true":
		return true
	case "input":
		return false
	}
	return c.EOL == "crlf"
}

// convertWords are what an attribute file must hold to convert any checkout
// when text files check out with LF: eol (=crlf), ident, filter, and
// working-tree-encoding; a macro that sets one ([attr]name eol=crlf) holds
// the word too, where it is defined.
var convertWords = [][]byte{[]byte("eol"), []byte("ident"), []byte("filter"), []byte("encoding")}

// MayConvert reports whether attribute files with these contents can give a
// file an attribute that converts it on checkout, when the configuration
// writes LF (see WritesCRLF): a look at the words, which errs on the side of
// yes, so that the common .gitattributes (text=auto, binary, -diff, linguist
// hints) costs no git check-attr.
func MayConvert(files ...[]byte) bool {
	for _, f := range files {
		lower := bytes.ToLower(f)
		for _, w := range convertWords {
			if bytes.Contains(lower, w) {
				return true
			}
		}
	}
	return false
}

// CaseMayMatter reports whether attribute files with these contents can
// give paths other attributes where git matches patterns whatever the case
// (core.ignorecase, which git sets on macOS and Windows): only when a path or
// a pattern has an upper-case ASCII letter (git folds ASCII only). Macro
// definitions ([attr]name) have no pattern.
func CaseMayMatter(files [][]byte, paths []string) bool {
	for _, p := range paths {
		if hasUpper(p) {
			return true
		}
	}
	for _, f := range files {
		for _, line := range strings.Split(string(f), "\n") {
			line = strings.TrimLeft(line, " \t\r")
			if line == "" || line[0] == '#' || strings.HasPrefix(line, "[attr]") {
				continue
			}
			pattern := line
			if i := strings.IndexAny(line, " \t\r"); i >= 0 && line[0] != '"' {
				pattern = line[:i]
			}
			if hasUpper(pattern) { // a quoted pattern: its whole line, which errs on the side of yes
				return true
			}
		}
	}
	return false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// Conversions names what a checkout may do to a file with these attributes
// under this configuration, as git 2.39's convert.c decides it: each entry an
// attribute as set ("working-tree-encoding=SHIFT_JIS", "eol=crlf", "ident",
// "filter=lfs") or the setting that converts ("core.autocrlf=true"). Nil when
// the checkout is the blob. Whether a named conversion changes any byte of a
// given blob (an ident without $Id$, a CRLF blob) only the checkout says.
func Conversions(a Attrs, c ConvertConfig) []string {
	var out []string
	out = append(out, eolConversion(a, c)...)
	if a["ident"] == "set" {
		out = append(out, "ident")
	}
	if f := a["filter"]; specified(f) && f != "set" && f != "unset" && c.Filters[f] {
		out = append(out, "filter="+f)
	}
	if e := a["working-tree-encoding"]; specified(e) && !isUTF8(e) {
		// set or unset (no encoding named) makes git refuse the checkout
		out = append(out, attrString("working-tree-encoding", e))
	}
	return out
}

// eolConversion names what makes a checkout write CRLF line endings, as
// convert_attrs and output_eol decide: git converts LF to CRLF on checkout,
// never the other way, so only a CRLF output changes bytes.
func eolConversion(a Attrs, c ConvertConfig) []string {
	name, action := "text", crlfAction(a["text"])
	if action == "" {
		name, action = "crlf", crlfAction(a["crlf"])
	}
	if action == "binary" {
		return nil
	}
	switch a["eol"] {
	case "crlf":
		if action == "auto" {
			return []string{attrString(name, a[name]), "eol=crlf"}
		}
		return []string{"eol=crlf"}
	case "lf":
		return nil
	}
	switch action {
	case "text", "auto":
		switch {
		case c.AutoCRLF == "true":
			return []string{attrString(name, a[name]), "core.autocrlf=true"}
		case c.AutoCRLF != "input" && c.EOL == "crlf":
			return []string{attrString(name, a[name]), "core.eol=crlf"}
		}
	case "":
		// neither text nor crlf is set: core.autocrlf alone decides
		if c.AutoCRLF == "true" {
			return []string{"core.autocrlf=true"}
		}
	}
	return nil
}

// crlfAction reads a text or crlf attribute as git_path_check_crlf does:
// "text", "binary", "input", "auto", or "" (undefined).
func crlfAction(v string) string {
	switch v {
	case "set":
		return "text"
	case "unset":
		return "binary"
	case "input", "auto":
		return v
	}
	return ""
}

// attrString writes an attribute's state as .gitattributes would: "ident",
// "-text", "eol=crlf".
func attrString(name, value string) string {
	switch value {
	case "set":
		return name
	case "unset":
		return "-" + name
	}
	return name + "=" + value
}

func isUTF8(enc string) bool {
	return strings.EqualFold(enc, "utf-8") || strings.EqualFold(enc, "utf8")
}

// ParseConvertConfig reads `git config -z --get-regexp` output for the keys
// ConvertConfig holds; a later value wins, as for git.
func ParseConvertConfig(b []byte) ConvertConfig {
	c := ConvertConfig{AutoCRLF: "false", Filters: map[string]bool{}}
	for _, rec := range splitZ(b) {
		key, value, hasValue := strings.Cut(rec, "\n")
		switch {
		case key == "core.autocrlf":
			c.AutoCRLF = autoCRLF(value, hasValue)
		case key == "core.eol":
			c.EOL = strings.ToLower(value)
		case key == "core.attributesfile":
			c.AttributesFile = value
		case strings.HasPrefix(key, "filter."):
			name, kind, ok := cutLast(strings.TrimPrefix(key, "filter."), ".")
			switch {
			case !ok:
			case kind == "smudge" || kind == "process":
				c.Filters[name] = true
			case kind == "required" && configBool(value, hasValue):
				// a required driver without a smudge command fails the checkout
				c.Filters[name] = true
			}
		}
	}
	return c
}

// autoCRLF reads core.autocrlf as git does: "input", or a boolean.
func autoCRLF(v string, hasValue bool) string {
	if strings.EqualFold(v, "input") {
		return "input"
	}
	if configBool(v, hasValue) {
		return "true"
	}
	return "false"
}

// configBool reads a boolean as git_config_bool does: a key alone, true,
// yes, on, or a number other than 0 (with a k, m or g unit) is true.
func configBool(v string, hasValue bool) bool {
	if !hasValue {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true
	case "", "false", "no", "off":
		return false
	}
	n := strings.TrimRight(strings.ToLower(v), "kmg")
	i, err := strconv.ParseInt(n, 0, 64)
	return err == nil && i != 0
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
