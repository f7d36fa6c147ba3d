package lifecycle

import (
	"slices"
	"testing"

	"github.com/git-tdd/git-tdd/internal/agentbox"
)

// An interactive agent keeps its own settings and API key, and is told of none
// of the human's GitHub tokens or servers: the same servers a sealed run drops.
func TestAgentEnv(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=k", "TERM=xterm", "GH_TOKEN=t", "GITHUB_TOKEN=t",
		"SSH_AUTH_SOCK=/s", "GPG_AGENT_INFO=/g", "SSH_ASKPASS=/a", "TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/b", "DISPLAY=:0", "KITTY_LISTEN_ON=unix:/k", "NVIM=/n", "CLAUDE_CONFIG_DIR=/c"}
	for _, tt := range []struct {
		name string
		s    agentbox.Settings
		want []string
	}{
		{"unconfined", agentbox.Settings{Off: true}, []string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=k", "TERM=xterm", "CLAUDE_CONFIG_DIR=/c"}},
		{"confined, its own Claude directory", agentbox.Settings{Home: "/h"}, []string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=k", "TERM=xterm", "CLAUDE_CONFIG_DIR=/c"}},
	} {
		if got := AgentEnv(environ, tt.s); !slices.Equal(got, tt.want) {
			t.Errorf("%s: AgentEnv = %q, want %q", tt.name, got, tt.want)
		}
	}
}
