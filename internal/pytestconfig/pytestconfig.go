// Package pytestconfig knows where pytest takes its configuration from: the
// file names, the section of a shared file it reads, and which file a run in a
// directory would choose.
package pytestconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Names are the files pytest reads its configuration from, in the
// order it looks for them in each directory (pytest 9 added the TOML pair).
var Names = []string{"pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"}

// File is the configuration file pytest would choose for a run in
// dir with args, found as pytest finds it (from each argument's directory up)
// but never above dir: pytest itself would go on to the parent directories,
// which are outside the repository and nobody reviewed. "" when there is none.
func File(dir string, args []string) string {
	for _, start := range argDirs(dir, args) {
		for d := start; ; d = filepath.Dir(d) {
			for _, name := range Names {
				p := filepath.Join(d, name)
				if data, err := os.ReadFile(p); err == nil && IsConfig(name, data) {
					return p
				}
			}
			if d == dir || !strings.HasPrefix(d, dir+string(filepath.Separator)) {
				break
			}
		}
	}
	return ""
}

// argDirs are the directories pytest starts its search from: those of the
// arguments that name existing paths inside dir, else dir.
func argDirs(dir string, args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		a, _, _ = strings.Cut(a, "::")
		p := filepath.Join(dir, a)
		if filepath.IsAbs(a) {
			p = filepath.Clean(a)
		}
		fi, err := os.Stat(p)
		if err != nil || (p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator))) {
			continue
		}
		if !fi.IsDir() {
			p = filepath.Dir(p)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []string{dir}
	}
	return out
}

var (
	iniPytest  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\[\s*pytest\s*\]`) })
	cfgPytest  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\[\s*tool:pytest\s*\]`) })
	iniSection = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[([^\]]*)\]`) })
)

// IsConfig reports whether pytest takes a file of that name and content
// as its configuration: pytest.ini and pytest.toml always, the others only
// with a pytest section.
func IsConfig(name string, data []byte) bool {
	switch name {
	case "pytest.ini", "pytest.toml", ".pytest.toml":
		return true
	case ".pytest.ini", "tox.ini":
		return iniPytest().Match(data)
	case "setup.cfg":
		return cfgPytest().Match(data)
	case "pyproject.toml":
		_, ok := Section(name, data)
		return ok
	}
	return false
}

// Section is the part of a shared configuration file that pytest reads,
// in a canonical form that two versions can be compared by: the [pytest] or
// [tool:pytest] section of an INI file, the tool.pytest table of pyproject.toml.
// ok is false when the file has none.
func Section(name string, data []byte) (section string, ok bool) {
	switch name {
	case "pyproject.toml":
		var doc struct {
			Tool map[string]toml.Primitive `toml:"tool"`
		}
		md, err := toml.Decode(string(data), &doc)
		if err != nil {
			// What pytest cannot parse it refuses to run with; compare it whole.
			return string(data), true
		}
		prim, found := doc.Tool["pytest"]
		if !found {
			return "", false
		}
		var table map[string]any
		if err := md.PrimitiveDecode(prim, &table); err != nil {
			return string(data), true
		}
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(table); err != nil {
			return string(data), true
		}
		return b.String(), true
	case "setup.cfg":
		return iniBody(data, "tool:pytest")
	case "tox.ini", ".pytest.ini":
		return iniBody(data, "pytest")
	}
	return string(data), true
}

// iniBody is an INI section's lines, trailing spaces trimmed, without blank
// and comment lines.
func iniBody(data []byte, name string) (string, bool) {
	var b strings.Builder
	in, found := false, false
	for _, line := range strings.Split(string(data), "\n") {
		if m := iniSection().FindStringSubmatch(line); m != nil {
			in = strings.TrimSpace(m[1]) == name
			found = found || in
			continue
		}
		t := strings.TrimRight(line, " \t\r")
		if in && strings.TrimSpace(t) != "" && !strings.HasPrefix(strings.TrimSpace(t), "#") && !strings.HasPrefix(strings.TrimSpace(t), ";") {
			b.WriteString(t + "\n")
		}
	}
	return b.String(), found
}
