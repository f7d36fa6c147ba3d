package tdd

import (
	"os"

	"github.com/git-tdd/git-tdd/internal/agentbox"
	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/lifecycle"
)

// AgentCmd runs an interactive agent in a workflow's worktree, in the
// sandbox, on this terminal.
type AgentCmd struct {
	Issue string   `arg:"" optional:"" help:"The issue whose worktree the agent works in (default: the worktree you are in, or the only active workflow)."`
	Write []string `name:"write" placeholder:"PATH" help:"One more path the agent may write (repeat it); it must exist."`
	// Network and NoSandbox are the human's word only: no file or variable sets them.
	Network   bool     `help:"Let the agent reach the network: every port (claude and codex get their API's, 443 and the port of ANTHROPIC_BASE_URL or OPENAI_BASE_URL, without it)."`
	Port      []uint16 `name:"port" placeholder:"N" help:"Let the agent connect to this TCP port only (repeat it); needs Landlock's network rules (Linux 6.7)."`
	NoSandbox bool     `name:"no-sandbox" help:"Run the agent without the sandbox, where this machine cannot confine it (warned, recorded in the audit log and shown by status)."`
	Command   []string `arg:"" optional:"" passthrough:"all" placeholder:"-- CMD [ARGS...]" help:"The agent and its arguments, after --."`
}

// Run runs the session; the agent's exit code is git tdd's.
func (c *AgentCmd) Run(env *cmdline.Env) error {
	issue, argv := c.split()
	if issue != "" {
		if err := lifecycle.CheckIssue(issue); err != nil {
			return err
		}
	}
	l, err := lifecycleEnv(env)
	if err != nil {
		return err
	}
	return l.RunAgent(lifecycle.Agent{Issue: issue, Argv: argv, Environ: os.Environ(),
		Flags: agentbox.Flags{NoSandbox: c.NoSandbox, Write: c.Write, Network: c.Network, Ports: c.Port}})
}

// split reads the arguments: after the issue, "--" starts the command; with
// no issue, what follows "--" is all command (kong gives its first word as
// the issue).
func (c *AgentCmd) split() (issue string, argv []string) {
	if len(c.Command) > 0 && c.Command[0] == "--" {
		return c.Issue, c.Command[1:]
	}
	if c.Issue == "" {
		return "", c.Command
	}
	return "", append([]string{c.Issue}, c.Command...)
}
