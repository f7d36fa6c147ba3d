package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ConfigEntry is one value of git's configuration and where git read it.
type ConfigEntry struct {
	Scope    string // system, global, local, worktree or command
	Origin   string // "file:<path>" (relative to the working tree's top for the repository's own), "command line:", "blob:<id>"…
	Key      string // section.[subsection.]name, section and name in lower case
	Value    string
	HasValue bool // false for a key written without "=" (true, for a boolean)
}

// Bool reads the value as git reads a boolean.
func (e ConfigEntry) Bool() bool { return configBool(e.Value, e.HasValue) }

// ConfigList is git's whole configuration here, in the order git reads it:
// a later value of a key overrides an earlier one.
type ConfigList []ConfigEntry

// ConfigList reads every value of the configuration, with its origin, in one
// process.
func (r *Repo) ConfigList(ctx context.Context) (ConfigList, error) {
	out, err := r.output(ctx, "config", "-z", "--show-scope", "--show-origin", "--list")
	if err != nil {
		return nil, err
	}
	return parseConfigList(out)
}

// parseConfigList reads `git config -z --show-scope --show-origin` (--list or
// --get-regexp): for each value, the scope and the origin, each ended by a
// NUL, then the key, and "\n" and the value when there is one, ended by a
// NUL.
func parseConfigList(b []byte) (ConfigList, error) {
	var out ConfigList
	for len(b) > 0 {
		var f [3][]byte
		for i := range f {
			var ok bool
			f[i], b, ok = bytes.Cut(b, []byte{0})
			if !ok {
				return nil, fmt.Errorf("git config: a cut entry: %q", clip(f[i]))
			}
		}
		key, value, hasValue := bytes.Cut(f[2], []byte{'\n'})
		if len(f[0]) == 0 || len(key) == 0 {
			return nil, fmt.Errorf("git config: a malformed entry: %q", clip(bytes.Join(f[:], []byte{' '})))
		}
		out = append(out, ConfigEntry{Scope: string(f[0]), Origin: string(f[1]), Key: string(key), Value: string(value), HasValue: hasValue})
	}
	return out, nil
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
	return ok && e.Bool()
}

// ConfigMaySign reports whether the configuration git reads here may set
// commit.gpgSign: one of git's configuration files, or the variables that
// carry `git -c` settings, mentions it (in any case), or a file one of them
// includes. It reads
// the files and runs nothing, and errs on the side of yes; when it says no,
// commit.gpgSign is unset, without the cost of a git process on every commit.
func (r *Repo) ConfigMaySign() bool {
	return r.configMayMention("gpgsign")
}

// ConfigMaySetSigning is ConfigMaySign for commit.gpgSign and
// user.signingKey: when it says no, neither is set, and a gate that needs
// both (whether to sign, which key its sandbox denies) runs no git for them.
func (r *Repo) ConfigMaySetSigning() bool {
	return r.configMayMention("gpgsign", "signingkey")
}

// configMayMention reports whether the configuration git reads here may
// mention one of words (lower case), in any case: one of git's configuration
// files does, or a file one of them includes (include.path and
// includeIf.*.path, whatever their condition), or the variables that carry
// `git -c` settings. It reads the files, runs nothing, and errs on the side
// of yes.
func (r *Repo) configMayMention(words ...string) bool {
	// an include on git's command line is not followed here
	words = append(slices.Clip(words), "include")
	if mentions([]byte(r.getenv("GIT_CONFIG_PARAMETERS")), words) {
		return true
	}
	if n, err := strconv.Atoi(r.getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := range n {
			if mentions([]byte(r.getenv("GIT_CONFIG_KEY_"+strconv.Itoa(i))), words) {
				return true
			}
		}
	} else if r.getenv("GIT_CONFIG_COUNT") != "" {
		return true
	}
	words = words[:len(words)-1]
	seen := map[string]bool{}
	for _, f := range r.configFiles() {
		if r.fileMayMention(f, words, seen, 0) {
			return true
		}
	}
	return false
}

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// fileMayMention reports whether the configuration file at path, or a file
// it includes, mentions one of words; a file that cannot be read (but does
// not exist: git skips it too), an include git would resolve in a way this
// does not, or includes nested too deep, may.
func (r *Repo) fileMayMention(path string, words []string, seen map[string]bool, depth int) bool {
	if !filepath.IsAbs(path) {
		return true // ~/ without a home: git reads what this cannot
	}
	if seen[path] {
		return false
	}
	seen[path] = true
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil || mentions(data, words) {
		return true
	}
	lower := bytes.ToLower(data)
	if !bytes.Contains(lower, []byte("include")) {
		return false
	}
	if depth >= maxIncludeDepth {
		return true
	}
	for line := range bytes.Lines(data) {
		line, ok := afterSection(bytes.TrimSpace(line))
		if !ok {
			return true
		}
		key, value, ok := bytes.Cut(line, []byte("="))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(key), []byte("path")) {
			continue
		}
		inc, ok := includedPath(string(bytes.TrimSpace(value)))
		if !ok {
			return true
		}
		if !strings.HasPrefix(inc, "~/") && !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(path), inc)
		}
		if r.fileMayMention(r.absolute(inc, ""), words, seen, depth+1) {
			return true
		}
	}
	return false
}

// afterSection is a configuration line without the section header it may
// begin with ("[include] path = x" is an include as much as on a line of its
// own); ok is false for a header whose end it cannot find.
func afterSection(line []byte) (rest []byte, ok bool) {
	if len(line) == 0 || line[0] != '[' {
		return line, true
	}
	quoted := false
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return bytes.TrimSpace(line[i+1:]), true
		}
	}
	return nil, false
}

// includedPath is an include's value as git reads a plain one; ok is false
// for quoting, escapes, comments and variables it does not resolve here.
func includedPath(v string) (string, bool) {
	if q, ok := strings.CutPrefix(v, `"`); ok {
		v, ok = strings.CutSuffix(q, `"`)
		if !ok {
			return "", false
		}
	}
	if v == "" || strings.ContainsAny(v, "\\\";#%") || strings.HasPrefix(v, "~") && !strings.HasPrefix(v, "~/") {
		return "", false
	}
	return v, true
}

// fileMentions reports whether the file at path mentions one of words, in any
// case; a file that cannot be read may (one that does not exist does not).
func fileMentions(path string, words []string) bool {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	return err != nil || mentions(data, words)
}

// mentions reports whether b holds one of words (lower case), in any case.
func mentions(b []byte, words []string) bool {
	b = bytes.ToLower(b)
	for _, w := range words {
		if bytes.Contains(b, []byte(w)) {
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

// UserConfigValues are the values of key, in order, that the user set: in
// the global and system files, and in the repository's own configuration
// files (.git/config, config.worktree), which live in the git dir no confined
// program writes; never a file included from elsewhere (a worktree's file an
// agent wrote) nor git's command line. A setting that widens what an agent may
// do is read only where the agent never wrote.
func (r *Repo) UserConfigValues(ctx context.Context, key string) ([]string, error) {
	out, err := r.output(ctx, "config", "-z", "--show-scope", "--show-origin", "--get-regexp", "^"+regexpQuote(key)+"$")
	if exitCode(err) == 1 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := parseConfigList(out)
	if err != nil {
		return nil, err
	}
	return l.userValues(r.Top, r.CommonDir), nil
}

// userValues are the values of the global and system scopes, and of the
// local and worktree scopes read from a file in commonDir (an origin relative
// to top, as git prints the repository's own).
func (l ConfigList) userValues(top, commonDir string) []string {
	var vs []string
	for _, e := range l {
		switch e.Scope {
		case "global", "system":
			vs = append(vs, e.Value)
		case "local", "worktree":
			file, ok := strings.CutPrefix(e.Origin, "file:")
			if !ok || commonDir == "" {
				continue
			}
			if !filepath.IsAbs(file) {
				file = filepath.Join(top, file)
			}
			if within(file, commonDir) {
				vs = append(vs, e.Value)
			}
		}
	}
	return vs
}

// within reports whether path lies in dir, symbolic links resolved.
func within(path, dir string) bool {
	real := func(p string) string {
		if q, err := filepath.EvalSymlinks(p); err == nil {
			return q
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(real(dir), real(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// regexpQuote escapes a config key's dots for git's regular expressions.
func regexpQuote(key string) string { return strings.ReplaceAll(key, ".", `\.`) }
