// Package sandbox confines a program an agent controls: an agent's command,
// and the tests, lint and setup commands it may have written. Confined, it
// writes only its worktree, its own temporary directory and the paths a human
// allowed; it reads everything but the human's credentials; it reaches no
// network unless allowed, none of the human's servers (ssh-agent, gpg-agent,
// the session bus, docker) and no other process; and it holds no privilege,
// even run as root. So it cannot write what git-tdd or the human later trusts
// (refs, hooks, the git configuration, tdd/state.toml, a site-packages .pth),
// nor sign in the human's name: local forgery is stopped, not only caught in CI.
//
// # Design
//
// Re-executed helper. Landlock and seccomp restrict the thread that applies
// them and all it starts, for good; git-tdd itself must stay free (it writes
// the state, the refs, and signs), and Go cannot run code in a child between
// fork and exec. So Wrap rewrites a command to start git-tdd again, as the
// hidden command __sandbox-exec (Helper), from /proc/self/exe: the binary that
// runs, whatever has replaced the file since. The helper restricts itself and
// execs the program in place: the same process, so package confine's session,
// tracking and killing hold as for any program.
//
// The policy travels on a pipe git-tdd writes and the helper inherits, never
// in its arguments or environment, which an agent-written configuration could
// reach. The program's environment travels with it: the helper itself runs
// with none, so no LD_PRELOAD or GODEBUG acts before the sandbox is up. A
// second pipe brings back why the helper refused, so that a refusal is never
// taken for the program's own failure (a red test run). The helper refuses to
// run without a valid policy on a pipe. An agent that runs it itself gains
// nothing: a Landlock domain and a seccomp filter only add up, each new one
// restricts further. Prestart starts the helper before its program is known
// (red and green start it while they stage, so that its start, a process and
// a Go runtime, is off the way to the tests): it waits on the pipe for what
// Pending.Send writes, checked as Wrap checks it, and exits quietly, having
// run nothing, when the pipe is closed empty.
//
// Landlock only grants: what no rule allows is denied. Everything but the
// denied paths stays readable (toolchains, caches, the repository's git dir)
// by granting, for each denied path, every sibling along its ancestors but the
// ancestor itself (Readable). Symbolic links among them are not granted (a
// rule follows a link, and one could point into a denied directory); their
// targets are readable where they are. The ancestors themselves cannot be
// listed (ls ~ fails where ~/.ssh is denied: a directory's rule covers all
// beneath it), and an entry created in one after the start is not readable.
// /dev is hidden but for null, zero, full, random and urandom, and the
// terminal when the program keeps it (Policy.Terminal): headless, no
// pseudo-terminal of the human's can be opened to read the keys typed there.
//
// Fail closed. Landlock's BestEffort succeeds silently where Landlock is
// missing; here the ABI is probed (Probe), a policy is checked against it
// (Status.Check), and the helper checks again: below ABI 3 (Linux 6.2),
// where truncate(2) is not restricted and a read-only hook could be emptied,
// or without seccomp, or on an architecture the filter is not built for, the
// sandbox refuses and names --no-sandbox, which only the human's command line
// gives.
//
// Network. Landlock's TCP rules (ABI 4) do not cover Multipath TCP, which Go
// listeners use by default since 1.24, nor UDP before ABI 10. So "network off"
// is a seccomp filter (github.com/elastic/go-seccomp-bpf) on socket(2): only
// AF_UNIX and AF_NETLINK sockets are created (netlink only reads the kernel's
// state without capabilities), every other family fails with EACCES. With
// the network on and Policy.Ports, Landlock allows connecting to those TCP
// ports only, and Multipath TCP sockets fail with EPROTONOSUPPORT so that
// programs fall back to TCP. io_uring, which creates sockets past the
// filter, is refused (ENOSYS: programs fall back to plain system calls).
//
// Unix sockets. Before Landlock ABI 9 nothing restricts connecting to a
// pathname unix socket, and the human's servers listen at known places:
// systemd-run --user over the session bus runs a command outside any
// sandbox, ssh-agent and gpg-agent sign with the human's keys, docker is
// root. So unless Policy.UnixSockets, socket(AF_UNIX) fails with EACCES (a
// socketpair, which node and Python use to talk to their children, still
// works); from ABI 9 Landlock allows connecting only to sockets in the
// writable paths or made inside the sandbox. Abstract unix sockets and
// signals to processes outside the sandbox are refused from ABI 6; before
// it, the guards refuse signals to git-tdd (the helper's parent) and its
// process group, kill(-1), tkill and pidfds (signalGuards), and git-tdd
// answers for the program's kill, rt_sigqueueinfo and fcntl(F_SETOWN),
// refusing any that name one of its threads (supervise_linux.go).
//
// Privilege. A program run as root (as CI does) keeps uid 0 but loses every
// capability, and no_new_privs keeps setuid programs from giving any back: it
// cannot load a kernel module, override file permissions or change the
// network. TIOCSTI and TIOCLINUX, which push input into a terminal for the
// shell to run once the agent is gone, and the kernel keyrings, which hold
// the user's secrets, are refused.
//
// Other processes. Landlock refuses tracing any process outside the sandbox,
// and what checks as tracing does (reading its memory, its environment, its
// files). Some calls only compare users: changing another process's
// resource limits (prlimit: a hard limit lowered on the human's shell is
// not raised again), priority (setpriority of every process of the user),
// I/O priority or scheduling. A seccomp program of guards (guards_linux.go)
// refuses them but on the caller itself.
//
// What Landlock cannot do. A directory's rights cover all it holds, so the
// worktree's .git file is as writable as the worktree: GitFile checks and
// restores it after a run. A hard link or a bind mount to a denied file
// elsewhere is readable there. Pathname unix sockets are only closed as a
// whole before ABI 9.
package sandbox
