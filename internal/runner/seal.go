package runner

import (
	"slices"
	"sort"
	"strings"
)

// Removed are the variables a sealed run drops from the caller's environment:
// the ones that put code or options nobody reviewed into the test run, and
// the human's servers. A name ending in "*" is a prefix. The committed [test]
// env may set any of them again.
var Removed = slices.Concat(loaders, Servers)

// loaders can put code or options that nobody reviewed into a run: a plugin,
// a startup file, a library preloaded, a flag.
var loaders = []string{
	// Python and pytest: plugins, options, startup files, import paths.
	"PYTHON*", "PYTEST_*", "PY_*", "_PYTEST*",
	// The dynamic loader: a preloaded or substituted library (libpython, libc).
	"LD_*", "DYLD_*",
	// Shells: startup files and exported functions a test script would run.
	"BASH_ENV", "ENV", "BASH_FUNC_*", "SHELLOPTS", "BASHOPTS", "CDPATH",
	// Go: flags and a toolchain or standard library of someone's choosing.
	"GOFLAGS", "GOROOT", "GOEXPERIMENT", "GODEBUG", "CGO_CFLAGS*", "CGO_CPPFLAGS*",
	"CGO_CXXFLAGS*", "CGO_FFLAGS*", "CGO_LDFLAGS*",
	// JVM, Node and Rust runners: agents and injected options.
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS",
	"NODE_OPTIONS", "RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER",
	"CARGO_BUILD_*", "CARGO_ENCODED_RUSTFLAGS",
	// Git: a test that runs git must see the worktree it runs in.
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_*", "GIT_CONFIG_VALUE_*",
}

// Servers name the human's servers and their terminal, which no program an
// agent controls is told of, sealed run or interactive agent (AgentEnv);
// Removed holds them too.
var Servers = []string{
	// Through one, a program starts a process outside git-tdd's tree that
	// outlives the run (tmux
	// new-window, screen -X, a window manager's exec, systemd-run --user over
	// D-Bus, a terminal's or an editor's remote control), types into or
	// reads the human's windows (X11, Wayland), asks the human for a secret
	// on their screen (an askpass program) or uses their keys (ssh-agent,
	// gpg-agent). Without these a program still finds a server at its
	// default place (tmux's socket in /tmp, the bus in $XDG_RUNTIME_DIR),
	// which the sandbox closes (no unix socket outside it).
	"TMUX", "TMUX_PANE", "TMUX_TMPDIR", "STY", "SCREENDIR", "ZELLIJ", "ZELLIJ_*",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "AT_SPI_BUS_ADDRESS",
	"DISPLAY", "XAUTHORITY", "WINDOWID", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID",
	"SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE", "NIRI_SOCKET",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GPG_TTY", "GNOME_KEYRING_CONTROL",
	"SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "GIT_ASKPASS", "SUDO_ASKPASS",
	"KITTY_*", "WEZTERM_*", "ALACRITTY_SOCKET", "ALACRITTY_WINDOW_ID", "GNOME_TERMINAL_SCREEN", "GNOME_TERMINAL_SERVICE",
	"KONSOLE_DBUS_*", "TERMINATOR_DBUS_*", "TILIX_ID",
	"NVIM", "NVIM_LISTEN_ADDRESS", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "VSCODE_GIT_ASKPASS_*",
}

// Credentials name tokens that act as the human on GitHub: no agent's program
// gets them (an agent's own API key it keeps).
var Credentials = []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}

// IsServer reports whether name is one of Servers.
func IsServer(name string) bool { return matches(Servers, name) }

// kept are harmless members of the removed families: they only change how
// output is encoded or buffered.
var kept = map[string]bool{"PYTHONIOENCODING": true, "PYTHONUTF8": true, "PYTHONUNBUFFERED": true}

// sealedSet is what every sealed run sets: no bytecode or cache written into
// the worktree (a red commit would pick it up); no user site-packages, whose
// .pth files run at start-up and which HOME, a variable every run needs, would
// let anyone point elsewhere ([test] env PYTHONNOUSERSITE = "" brings it
// back); and go test really runs the tests instead of replaying a cached result.
var sealedSet = []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "GOFLAGS=-count=1"}

// IsRemoved reports whether a sealed run drops the variable name.
func IsRemoved(name string) bool {
	if kept[name] {
		return false
	}
	return matches(Removed, name)
}

// matches reports whether name is in names, where a name ending in "*" is a
// prefix.
func matches(names []string, name string) bool {
	for _, r := range names {
		if p, ok := strings.CutSuffix(r, "*"); ok && strings.HasPrefix(name, p) || name == r {
			return true
		}
	}
	return false
}

// Seal builds a sealed run's environment from the caller's: the removed
// variables dropped, the sealed settings added, then set (the committed [test]
// env) on top, in a stable order.
func Seal(environ []string, set map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" && !IsRemoved(k) {
			vars[k] = v
		}
	}
	for _, kv := range sealedSet {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for k, v := range set {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
