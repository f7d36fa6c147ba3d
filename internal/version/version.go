// Package version reports the toolkit's version, stamped at build time.
package version

import "runtime/debug"

// Version is set with -ldflags "-X github.com/git-tdd/git-tdd/internal/version.Version=v1.2.3".
var Version = ""

// String is the version to print: the stamped one, the module's, or "devel".
func String() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
