package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ConfigEntry is one value of git's configuration and where git read it.
type ConfigEntry struct {
	Origin   string // "file:<path>", "command line:", "blob:<id>"…
	Key      string // section.[subsection.]name, section and name in lower case
	Value    string
	HasValue bool // false for a key written without "=" (true, for a boolean)
}

// ConfigList is git's whole configuration here, in the order git reads it:
// a later value of a key overrides an earlier one.
type ConfigList []ConfigEntry

// ConfigList reads every value of the configuration, with its origin, in one
// process.
func (r *Repo) ConfigList(ctx context.Context) (ConfigList, error) {
	out, err := r.output(ctx, "config", "-z", "--show-origin", "--list")
	if err != nil {
		return nil, err
	}
	list, ok := parseConfigList(out)
	if !ok {
		return nil, fmt.Errorf("git config --list: unexpected output")
	}
	return list, nil
}

// parseConfigList reads `git config -z --show-origin --list`: for each value,
// the origin ended by a NUL, then the key, and "\n" and the value when there
// is one, ended by a NUL.
func parseConfigList(b []byte) (ConfigList, bool) {
	var out ConfigList
	for len(b) > 0 {
		origin, rest, ok := bytes.Cut(b, []byte{0})
		if !ok {
			return nil, false
		}
		record, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, false
		}
		key, value, hasValue := bytes.Cut(record, []byte{'\n'})
		out = append(out, ConfigEntry{Origin: string(origin), Key: string(key), Value: string(value), HasValue: hasValue})
		b = rest
	}
	return out, true
}

// Get returns the value of key that git uses: the last one.
func (l ConfigList) Get(key string) (ConfigEntry, bool) {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].Key == key {
			return l[i], true
		}
	}
	return ConfigEntry{}, false
}

// Bool reads key as git reads a boolean; unset is false.
func (l ConfigList) Bool(key string) bool {
	e, ok := l.Get(key)
	return ok && configBool(e.Value, e.HasValue)
}

// signKeys are what a configuration that may set commit.gpgSign mentions:
// the key, or an include that may bring it in.
var signKeys = [][]byte{[]byte("gpgsign"), []byte("include")}

// ConfigMaySign reports whether the configuration git reads here may set
// commit.gpgSign: one of git's configuration files, or the variables that
// carry `git -c` settings, mentions it (in any case) or an include. It reads
// the files and runs nothing, and errs on the side of yes; when it says no,
// commit.gpgSign is unset, without the cost of a git process on every commit.
func (r *Repo) ConfigMaySign() bool {
	mentions := func(b []byte) bool {
		b = bytes.ToLower(b)
		for _, k := range signKeys {
			if bytes.Contains(b, k) {
				return true
			}
		}
		return false
	}
	if mentions([]byte(r.getenv("GIT_CONFIG_PARAMETERS"))) {
		return true
	}
	if count := r.getenv("GIT_CONFIG_COUNT"); count != "" {
		n, err := strconv.Atoi(count)
		if err != nil {
			return true
		}
		for i := range n {
			if mentions([]byte(r.getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i)))) {
				return true
			}
		}
	}
	for _, f := range r.configFiles() {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || mentions(data) {
			return true
		}
	}
	return false
}

// ConfigFiles are the files this configuration may come from: git's usual
// ones (whether they exist or not), the files values were read from, and
// the files include.path and includeIf.*.path name (whether their condition
// holds or not), so that a change to any of them can be seen.
func (r *Repo) ConfigFiles(l ConfigList) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range r.configFiles() {
		add(r.absolute(f, r.Top))
	}
	for _, e := range l {
		file, ok := strings.CutPrefix(e.Origin, "file:")
		if !ok {
			continue
		}
		file = r.absolute(file, r.Top)
		add(file)
		if e.Key == "include.path" || strings.HasPrefix(e.Key, "includeif.") && strings.HasSuffix(e.Key, ".path") {
			add(r.absolute(e.Value, filepath.Dir(file)))
		}
	}
	return out
}

// absolute makes a configuration path absolute: "~/" is the home directory,
// a relative path is relative to dir.
func (r *Repo) absolute(p, dir string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(r.getenv("HOME"), rest)
	}
	if filepath.IsAbs(p) || p == "" {
		return p
	}
	return filepath.Join(dir, p)
}
