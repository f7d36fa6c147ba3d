// Package version reports the toolkit's version, stamped at build time: a
// semantic version and the commit it was built from.
package version

import (
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Version is what git describe --tags --always --dirty said at build time, set
// with -ldflags "-X github.com/git-tdd/git-tdd/internal/version.Version=…"
// (make and install.sh do); without it, the module's version (go install …@v1.2.3).
var Version = ""

// Commit is the commit built from, set with -ldflags "-X …/version.Commit=…";
// without it, the revision Go stamps into a build from a git checkout.
var Commit = ""

// Base is the release being worked towards, for builds from before any tag.
const Base = "0.1.0"

var (
	described = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-(\d+)-g([0-9a-f]{4,})$`)
	})
	semantic = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	})
	dirtyLabel = "dirty"
)

// Semantic turns what git describe says into a semantic version: a tag as it
// is (without its v); N commits after a tag, a pre-release of the next patch
// (1.2.4-dev.N+gHASH), so that it sorts after the tag and before the next
// release; no tag at all, Base-dev. A dirty tree is marked in the build
// metadata.
func Semantic(describe string) string {
	s := strings.TrimPrefix(strings.TrimSpace(describe), "v")
	s, dirty := strings.CutSuffix(s, "-"+dirtyLabel)
	var meta []string
	count := ""
	if m := described().FindStringSubmatch(s); m != nil && semantic().MatchString(s[:len(s)-len(m[0])]) {
		count, meta = m[1], append(meta, "g"+m[2])
		s = s[:len(s)-len(m[0])]
	}
	m := semantic().FindStringSubmatch(s)
	if m == nil {
		s, m = Base+"-dev", nil
	} else if count != "" {
		if m[4] == "" {
			patch, _ := strconv.Atoi(m[3])
			s = m[1] + "." + m[2] + "." + strconv.Itoa(patch+1) + "-dev." + count
		} else {
			s = m[1] + "." + m[2] + "." + m[3] + m[4] + ".dev." + count
		}
	}
	if dirty {
		meta = append(meta, dirtyLabel)
	}
	if len(meta) > 0 {
		s += "+" + strings.Join(meta, ".")
	}
	return s
}

// String is the version to print: the semantic version, and the commit when
// it is known.
func String() string {
	raw, commit, modified := Version, Commit, false
	if info, ok := debug.ReadBuildInfo(); ok {
		if raw == "" && info.Main.Version != "(devel)" {
			raw = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.modified" && Commit == "":
				modified = s.Value == "true"
			}
		}
	}
	out := Semantic(raw)
	if len(commit) > 12 {
		commit = commit[:12]
	}
	switch {
	case commit != "" && modified:
		out += " (commit " + commit + ", modified)"
	case commit != "":
		out += " (commit " + commit + ")"
	}
	return out
}
