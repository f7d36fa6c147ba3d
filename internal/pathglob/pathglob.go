// Package pathglob matches slash-separated paths against glob patterns in which
// "**" spans any number of directories, as in .gitignore.
package pathglob

import (
	"path"
	"strings"
)

// Match reports whether name matches pattern: "*", "?" and "[…]" match within one
// path segment, "**" matches zero or more whole segments.
func Match(pattern, name string) bool {
	return match(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// Any reports whether name matches one of patterns.
func Any(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}

func match(ps, ns []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for i := 0; i <= len(ns); i++ {
				if match(ps[1:], ns[i:]) {
					return true
				}
			}
			return false
		}
		if len(ns) == 0 {
			return false
		}
		if ok, err := path.Match(ps[0], ns[0]); err != nil || !ok {
			return false
		}
		ps, ns = ps[1:], ns[1:]
	}
	return len(ns) == 0
}
