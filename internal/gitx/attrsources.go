package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Where, besides a tree's .gitattributes, git finds what converts a file on
// checkout here: attribute files and configuration files, looked at without
// running git, so that a review with none of them costs no process.

// OutsideAttributes are the attribute files, besides the tree's own
// .gitattributes, that git reads on a checkout here and that exist: the
// repository's info/attributes (in no commit: anything with a shell here can
// write it), core.attributesFile or its default ~/.config/git/attributes,
// and the system's. attributesFile is core.attributesFile as configured ("":
// the default). It reads no more than a stat of each.
func (r *Repo) OutsideAttributes(attributesFile string) []string {
	var out []string
	if r.CommonDir != "" {
		out = appendNonEmpty(out, filepath.Join(r.CommonDir, "info", "attributes"))
	}
	if f := r.globalAttributes(attributesFile); f != "" {
		out = appendNonEmpty(out, f)
	}
	if !envBool(r.getenv("GIT_ATTR_NOSYSTEM")) {
		for _, f := range systemFiles("gitattributes") {
			out = appendNonEmpty(out, f)
		}
	}
	return out
}

// globalAttributes is the user's attributes file: core.attributesFile (~/
// expanded, relative to the top of the working tree as git runs there), else
// $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes.
func (r *Repo) globalAttributes(configured string) string {
	home := r.getenv("HOME")
	switch {
	case configured == "":
	case strings.HasPrefix(configured, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, configured[2:])
	case filepath.IsAbs(configured):
		return configured
	default:
		return filepath.Join(r.Top, configured)
	}
	if x := r.getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "attributes")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "git", "attributes")
}

// appendNonEmpty adds path when it is a file that holds something (an
// unreadable one counts: git may read what we cannot).
func appendNonEmpty(out []string, path string) []string {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && (fi.IsDir() || fi.Size() == 0)) {
		return out
	}
	if slices.Contains(out, path) {
		return out
	}
	return append(out, path)
}

// systemFiles are where git's system-wide files live: /etc, and etc under the
// prefix git was installed in (/usr/local/etc for a build from source).
func systemFiles(name string) []string {
	out := []string{filepath.Join("/etc", name)}
	if git, err := gitPath(); err == nil {
		if resolved, err := filepath.EvalSymlinks(git); err == nil {
			git = resolved
		}
		if f := filepath.Join(filepath.Dir(filepath.Dir(git)), "etc", name); f != out[0] {
			out = append(out, f)
		}
	}
	return out
}

// convertKeys are the configuration words that can make a checkout write
// CRLF (core.autocrlf, core.eol) or move the user's attributes file
// (core.attributesFile; attr.tree, from git 2.42, takes attributes from
// another tree).
var convertKeys = []string{"autocrlf", "eol", "attr"}

// ConfigMayConvert reports whether the configuration git reads here may set
// core.autocrlf, core.eol or core.attributesFile (or attr.tree): one of
// git's configuration files, a file one of them includes, or the variables
// that carry `git -c` settings, mentions one of them; or GIT_ATTR_SOURCE is set. It reads
// the files, runs nothing, and errs on the side of yes; ConvertConfig has
// git say what is set. When it says no, those are unset (filter drivers
// aside).
func (r *Repo) ConfigMayConvert() bool {
	return r.getenv("GIT_ATTR_SOURCE") != "" || r.configMayMention(convertKeys...)
}

// inTop is a path git, run in the top level, opens as given: a relative
// one is relative to the top level.
func (r *Repo) inTop(p string) string {
	if filepath.IsAbs(p) || r.Top == "" {
		return p
	}
	return filepath.Join(r.Top, p)
}

// configFiles are the files git reads its configuration from here: the
// system's, the user's, the repository's and the working tree's.
func (r *Repo) configFiles() []string {
	var out []string
	if !envBool(r.getenv("GIT_CONFIG_NOSYSTEM")) {
		if f := r.getenv("GIT_CONFIG_SYSTEM"); f != "" {
			out = append(out, r.inTop(f))
		} else {
			out = append(out, systemFiles("gitconfig")...)
		}
	}
	if f := r.getenv("GIT_CONFIG_GLOBAL"); f != "" {
		out = append(out, r.inTop(f))
	} else {
		home := r.getenv("HOME")
		if x := r.getenv("XDG_CONFIG_HOME"); x != "" {
			out = append(out, filepath.Join(x, "git", "config"))
		} else if home != "" {
			out = append(out, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			out = append(out, filepath.Join(home, ".gitconfig"))
		}
	}
	if r.CommonDir != "" {
		out = append(out, filepath.Join(r.CommonDir, "config"), filepath.Join(r.CommonDir, "config.worktree"))
	}
	if r.GitDir != "" && r.GitDir != r.CommonDir {
		out = append(out, filepath.Join(r.GitDir, "config.worktree"))
	}
	return out
}

// envBool reads a boolean environment variable as git does.
func envBool(v string) bool {
	return v != "" && configBool(v, true)
}
