package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/creack/pty"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"

	"github.com/git-tdd/git-tdd/internal/confine"
)

// The test binary is also git-tdd's helper (__sandbox-exec), and the
// confined program when SANDBOX_TEST_DO is in its environment: its arguments
// say what it tries, and it prints "ok" or the error.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(Helper(os.Args[2:], os.Stderr))
	}
	if os.Getenv("SANDBOX_TEST_DO") != "" {
		err := try(os.Args[1:])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// try is one thing a dishonest agent tries.
func try(args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch arg(0) {
	case "read":
		_, err := os.ReadFile(arg(1))
		return err
	case "write":
		return os.WriteFile(arg(1), []byte("agent"), 0o644)
	case "open":
		f, err := os.OpenFile(arg(1), os.O_RDWR, 0)
		if err == nil {
			f.Close()
		}
		return err
	case "dial":
		c, err := net.DialTimeout(arg(1), arg(2), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "mptcp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, ipprotoMPTCP)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "packet":
		fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	case "vmread":
		// another task's memory: permission comes first, then the address
		// (1, never mapped: EFAULT when permitted)
		pid, _ := strconv.Atoi(arg(1))
		buf := make([]byte, 1)
		local := []unix.Iovec{{Base: &buf[0], Len: 1}}
		remote := []unix.RemoteIovec{{Base: 1, Len: 1}}
		_, err := unix.ProcessVMReadv(pid, local, remote, 0)
		return err
	case "ptrace":
		pid, _ := strconv.Atoi(arg(1))
		_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(pid), 0, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "kill":
		pid, _ := strconv.Atoi(arg(1))
		return syscall.Kill(pid, 0)
	case "signal-guards":
		return trySignalGuards()
	case "signal-guards-thread":
		return trySignalGuardsThread()
	case "signal-own-group":
		return trySignalOwnGroup()
	case "interactive-git-tdd":
		return tryInteractiveGitTdd()
	case "terminal-quit":
		return tryTerminalQuit()
	case "tgkill":
		// a signal to one thread of git-tdd (signal 0: the permission only)
		pid, _ := strconv.Atoi(arg(1))
		tid, _ := strconv.Atoi(arg(2))
		return unix.Tgkill(pid, tid, 0)
	case "prlimit":
		// another process's resource limit, set to what it is: the
		// permission only (a lower one would make its writes fail)
		pid, _ := strconv.Atoi(arg(1))
		var lim unix.Rlimit
		if err := unix.Prlimit(pid, unix.RLIMIT_CORE, nil, &lim); err != nil {
			return err
		}
		return unix.Prlimit(pid, unix.RLIMIT_CORE, &lim, nil)
	case "limits-self":
		// its own limit, as libc's setrlimit sets it (prlimit64 pid 0), and
		// another's read
		var lim unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_CORE, &lim); err != nil {
			return err
		}
		if err := unix.Setrlimit(unix.RLIMIT_CORE, &lim); err != nil {
			return err
		}
		pid, _ := strconv.Atoi(arg(1))
		return unix.Prlimit(pid, unix.RLIMIT_CORE, nil, &lim)
	case "nice-self":
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
		if err != nil {
			return err
		}
		return unix.Setpriority(unix.PRIO_PROCESS, 0, 20-prio) // its own, unchanged
	case "nice-user":
		// every process of the user: set to what the caller has, which a
		// refusal leaves as it is anyway
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
		if err != nil {
			return err
		}
		return unix.Setpriority(unix.PRIO_USER, 0, 20-prio)
	case "affinity":
		pid, _ := strconv.Atoi(arg(1))
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(pid, &set); err != nil {
			return err
		}
		return unix.SchedSetaffinity(pid, &set)
	case "tiocsti":
		// on /dev/null the kernel answers ENOTTY; the filter answers first
		f, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		c := byte('x')
		req := uintptr(unix.TIOCSTI)
		if arg(1) == "high" {
			req |= 0xffffffff00000000 // the kernel reads 32 bits
		}
		_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return e
		}
		return nil
	case "keyctl":
		_, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false)
		return err
	case "io_uring":
		var params [120]byte
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	case "status":
		// what it holds: capabilities and no_new_privs
		f, err := os.Open("/proc/self/status")
		if err != nil {
			return err
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			for _, k := range []string{"CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:"} {
				if strings.HasPrefix(s.Text(), k) {
					fmt.Println(strings.Join(strings.Fields(s.Text()), " "))
				}
			}
		}
		return nil
	case "escape":
		// a confined agent runs the helper itself, with a policy of its own
		// that lets it write where it wants
		cmd := exec.Command("sh", "-c", `echo escaped > "$1"`, "sh", filepath.Join(arg(1), "escaped"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		w, err := Policy{Write: []string{arg(1)}, Network: true, UnixSockets: true}.Wrap(cmd)
		if err != nil {
			return err
		}
		err = cmd.Start()
		w.Started()
		if err == nil {
			err = cmd.Wait()
		}
		if rerr := w.Err(); rerr != nil {
			return rerr
		}
		if err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", args)
}

// available skips where this machine cannot confine, unless
// GIT_TDD_REQUIRE_SANDBOX says it must (as CI does).
func available(t testing.TB) {
	t.Helper()
	st, err := Probe()
	if err == nil {
		err = st.Check(Policy{Network: true, Ports: []uint16{1}})
	}
	if err != nil {
		if os.Getenv("GIT_TDD_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// repo is a real repository with a linked worktree, a home directory with
// credentials and the files git-tdd trusts, and a run's temporary directory.
type repo struct {
	layout
	outside string
	env     []string // the confined programs' environment
}

// withRepo runs test against a new repo.
func withRepo(t *testing.T, test func(*testing.T, repo)) {
	test(t, newRepo(t))
}

func newRepo(t testing.TB) repo {
	t.Helper()
	available(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := repo{layout: layout{root: root, home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo"),
		worktree: filepath.Join(root, "repo-issue-1"), tmp: filepath.Join(root, "run-tmp"), extra: filepath.Join(root, "extra")},
		outside: filepath.Join(root, "outside")}
	r.common = filepath.Join(r.repo, ".git")
	r.gitDir = filepath.Join(r.common, "worktrees", "repo-issue-1")
	files := map[string]string{
		".ssh/id_ed25519":                           "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		".config/gh/hosts.yml":                      "github.com:\n    oauth_token: gho_secret\n",
		".gitconfig":                                "[user]\n\tname = Human\n\temail = human@example.com\n",
		".config/git-tdd/config.toml":               "",
		".local/lib/python3.11/site-packages/ok.py": "",
		".profile":                                  "# readable\n",
		".claude/settings.json":                     "{}\n",
	}
	for name, content := range files {
		p := filepath.Join(r.home, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{r.repo, r.tmp, r.extra, r.outside} {
		os.MkdirAll(d, 0o755)
	}
	r.env = []string{"HOME=" + r.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + r.tmp, "LANG=C", "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "SANDBOX_TEST_DO=1"}
	r.git(t, r.repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(r.repo, "README"), []byte("hello\n"), 0o644)
	r.git(t, r.repo, "add", "README")
	r.git(t, r.repo, "commit", "-q", "-m", "first")
	r.git(t, r.repo, "worktree", "add", "-q", "-b", "feat/issue-1", r.worktree)
	os.MkdirAll(filepath.Join(r.common, "tdd"), 0o755)
	os.WriteFile(filepath.Join(r.common, "tdd", "state.toml"), []byte("# state\n"), 0o644)
	os.WriteFile(filepath.Join(r.common, "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	return r
}

func (r repo) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r repo) agentPolicy(t testing.TB, edit func(*Run)) Policy {
	t.Helper()
	run := r.run()
	if edit != nil {
		edit(&run)
	}
	p, err := ForAgent(run)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// outcome is what a confined program did.
type outcome struct {
	out, stderr string
	code        int
	refused     error // the helper's refusal
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d, stdout %q, stderr %q, refused %v", o.code, o.out, o.stderr, o.refused)
}

// confined runs argv under p in dir, as the wiring will: Wrap, then
// confine.Start. "self" is this test binary.
func (r repo) confined(t *testing.T, p Policy, dir string, argv ...string) outcome {
	t.Helper()
	if argv[0] == "self" {
		argv[0] = os.Args[0]
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, r.env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	w, err := p.Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	proc, err := confine.Start(cmd)
	w.Started()
	if err != nil {
		t.Fatal(err)
	}
	err = proc.Wait()
	o := outcome{out: strings.TrimSpace(out.String()), stderr: strings.TrimSpace(stderr.String()), refused: w.Err()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}

// Everything the default agent policy must refuse, tried as a dishonest
// agent would, from its worktree, by shell and by system call. The test runs
// as root where it can: root passes every file permission, not Landlock.
func TestAgentIsRefused(t *testing.T) { withRepo(t, testAgentIsRefused) }

func testAgentIsRefused(t *testing.T, r repo) {
	p := r.agentPolicy(t, nil)
	targets := []struct{ name, path string }{
		{"../outside", filepath.Join(r.worktree, "..", "outside", "f")},
		{"the main checkout", filepath.Join(r.repo, "README")},
		{"refs/heads/main", filepath.Join(r.common, "refs", "heads", "main")},
		{"hooks/pre-commit", filepath.Join(r.common, "hooks", "pre-commit")},
		{"tdd/state.toml", filepath.Join(r.common, "tdd", "state.toml")},
		{"the worktree's git dir", filepath.Join(r.gitDir, "HEAD")},
		{"~/.gitconfig", filepath.Join(r.home, ".gitconfig")},
		{"~/.config/git-tdd/config.toml", filepath.Join(r.home, ".config", "git-tdd", "config.toml")},
		{"a .pth in the user's site-packages", filepath.Join(r.home, ".local", "lib", "python3.11", "site-packages", "x.pth")},
	}
	for _, tc := range targets {
		t.Run("write "+tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(tc.path)
			// unconfined, this process may write it: what refuses is the sandbox
			if f, err := os.OpenFile(tc.path, os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
				t.Fatalf("the test cannot write %s itself: %v", tc.path, err)
			} else {
				f.Close()
				if before == nil {
					os.Remove(tc.path)
				}
			}
			o := r.confined(t, p, r.worktree, "sh", "-c", `echo pwned > "$1"`, "sh", tc.path)
			if o.code == 0 || !strings.Contains(o.stderr, "Permission denied") || o.refused != nil {
				t.Errorf("sh wrote %s: %v", tc.path, o)
			}
			o = r.confined(t, p, r.worktree, "self", "write", tc.path)
			if o.code != 1 || !strings.Contains(o.out, "permission denied") {
				t.Errorf("a program wrote %s: %v", tc.path, o)
			}
			after, _ := os.ReadFile(tc.path)
			if !bytes.Equal(before, after) {
				t.Errorf("%s changed: %q, was %q", tc.path, after, before)
			}
		})
	}
	for _, tc := range []struct{ name, path string }{
		{"~/.ssh/id_ed25519", filepath.Join(r.home, ".ssh", "id_ed25519")},
		{"~/.config/gh/hosts.yml", filepath.Join(r.home, ".config", "gh", "hosts.yml")},
	} {
		t.Run("read "+tc.name, func(t *testing.T) {
			if _, err := os.ReadFile(tc.path); err != nil {
				t.Fatal(err)
			}
			o := r.confined(t, p, r.worktree, "cat", tc.path)
			if o.code == 0 || strings.Contains(o.out, "PRIVATE KEY") || strings.Contains(o.out, "gho_") {
				t.Errorf("cat read %s: %v", tc.path, o)
			}
			o = r.confined(t, p, r.worktree, "self", "read", tc.path)
			if !strings.Contains(o.out, "permission denied") {
				t.Errorf("a program read %s: %v", tc.path, o)
			}
		})
	}
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		// headless: no terminal opens, even where one would
		{"open /dev/tty", []string{"self", "open", "/dev/tty"}, "permission denied"},
		{"open the console", []string{"self", "open", "/dev/console"}, "permission denied"},
		// another process's environment (its API keys): Landlock refuses
		// what ptrace would read
		{"read git-tdd's environment", []string{"self", "read", fmt.Sprintf("/proc/%d/environ", os.Getpid())}, "permission denied"},
		{"signal git-tdd", []string{"self", "kill", strconv.Itoa(os.Getpid())}, "operation not permitted"},
		{"push input into a terminal", []string{"self", "tiocsti"}, "operation not permitted"},
		{"push input, the request's upper half set", []string{"self", "tiocsti", "high"}, "operation not permitted"},
		{"read the kernel keyring", []string{"self", "keyctl"}, "operation not permitted"},
		{"make sockets through io_uring", []string{"self", "io_uring"}, "function not implemented"},
		{"a socket of another family", []string{"self", "packet"}, "permission denied"},
		{"git add: the index is in the git dir", []string{"git", "add", "-A"}, "index.lock"},
		// another process's priority, limits or scheduling
		{"renice every process of the user", []string{"self", "nice-user"}, "operation not permitted"},
		{"set git-tdd's CPUs", []string{"self", "affinity", strconv.Itoa(os.Getpid())}, "operation not permitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := r.confined(t, p, r.worktree, tc.argv...)
			if o.code == 0 || !strings.Contains(o.out+o.stderr, tc.want) {
				t.Errorf("%v, want a refusal saying %q", o, tc.want)
			}
		})
	}
	t.Run("no privilege", func(t *testing.T) {
		o := r.confined(t, p, r.worktree, "self", "status")
		for _, want := range []string{"CapPrm: 0000000000000000", "CapEff: 0000000000000000", "CapAmb: 0000000000000000", "NoNewPrivs: 1"} {
			if !strings.Contains(o.out, want) {
				t.Errorf("%v, want %q", o, want)
			}
		}
		if os.Geteuid() == 0 && !strings.Contains(o.out, "CapBnd: 0000000000000000") {
			t.Errorf("run as root, it keeps capabilities it could get back: %v", o)
		}
	})
	t.Run("run the helper itself, with a policy of its own", func(t *testing.T) {
		// the helper's own sandbox adds to the one it runs in: here it cannot
		// even list / to grant what is readable, and runs nothing
		o := r.confined(t, p, r.worktree, "self", "escape", r.outside)
		if o.code == 0 || !strings.Contains(o.out, "permission denied") {
			t.Errorf("the agent escaped: %v", o)
		}
		if _, err := os.Stat(filepath.Join(r.outside, "escaped")); err == nil {
			t.Error("it wrote outside")
		}
	})
}

// What an agent needs works: its worktree, its temporary directory, its
// [sandbox] write paths, git status/diff/log, the devices programs expect.
func TestAgentWorks(t *testing.T) { withRepo(t, testAgentWorks) }

func testAgentWorks(t *testing.T, r repo) {
	p := r.agentPolicy(t, nil)
	// a tracked file whose stat no longer matches the index: git status would
	// refresh and write the index, which it may not
	readme := filepath.Join(r.worktree, "README")
	later := time.Now().Add(time.Hour)
	os.Chtimes(readme, later, later)
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"write in the worktree", []string{"sh", "-c", "echo new > new.txt && mkdir -p pkg/sub && echo x > pkg/sub/m.py && mv pkg/sub/m.py pkg/n.py && rm -r pkg && cat new.txt"}, "new"},
		{"write in TMPDIR", []string{"sh", "-c", `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`}, "t"},
		{"write a [sandbox] write path", []string{"self", "write", filepath.Join(r.extra, "x")}, "ok"},
		{"write the agent CLI's state", []string{"self", "write", filepath.Join(r.home, ".claude", "settings.json")}, "ok"},
		{"read the home directory's other files", []string{"cat", filepath.Join(r.home, ".profile")}, "# readable"},
		{"read the main checkout", []string{"cat", filepath.Join(r.repo, "README")}, "hello"},
		{"git status", []string{"git", "status", "--porcelain"}, "?? new.txt"},
		{"git log", []string{"git", "log", "--oneline"}, "first"},
		{"git diff", []string{"sh", "-c", "echo changed >> README && git diff --stat"}, "README | 1 +"},
		{"the devices", []string{"sh", "-c", "echo x > /dev/null && head -c 4 /dev/urandom | wc -c && head -c 2 /dev/zero | wc -c"}, "4\n2"},
		{"a pipe as /dev/stdout", []string{"sh", "-c", "echo piped > /dev/stdout"}, "piped"},
		{"a socketpair", []string{"self", "socketpair"}, "ok"},
		{"its own limits, and another's read", []string{"self", "limits-self", strconv.Itoa(os.Getpid())}, "ok"},
		{"its own priority", []string{"self", "nice-self"}, "ok"},
		{"its own CPUs", []string{"self", "affinity", "0"}, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := r.confined(t, p, r.worktree, tc.argv...)
			if o.code != 0 || !strings.Contains(o.out, tc.want) || o.refused != nil {
				t.Errorf("%v, want exit 0 and %q", o, tc.want)
			}
			if strings.HasPrefix(tc.name, "git") && o.stderr != "" {
				t.Errorf("git complained: %q", o.stderr)
			}
		})
	}
}

// The network: off, nothing connects (Multipath TCP included); on, it does;
// limited to ports, only those.
func TestNetwork(t *testing.T) { withRepo(t, testNetwork) }

func testNetwork(t *testing.T, r repo) {
	listen := func() (net.Listener, uint16) {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return l, uint16(l.Addr().(*net.TCPAddr).Port)
	}
	allowed, port := listen()
	other, _ := listen()
	sock := filepath.Join(r.outside, "s")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	off := r.agentPolicy(t, nil)
	on := r.agentPolicy(t, func(run *Run) { run.Network = true })
	ports := r.agentPolicy(t, func(run *Run) { run.Network, run.Ports = true, []uint16{port} })
	unixOK := off
	unixOK.UnixSockets = true
	for _, tc := range []struct {
		name   string
		policy Policy
		argv   []string
		want   string // "ok" or the error
	}{
		{"off: a listener on 127.0.0.1", off, []string{"self", "dial", "tcp", allowed.Addr().String()}, "permission denied"},
		{"off: bash's /dev/tcp", off, []string{"bash", "-c", "echo > /dev/tcp/127.0.0.1/" + strconv.Itoa(int(port))}, "Permission denied"},
		{"off: Multipath TCP", off, []string{"self", "mptcp"}, "permission denied"},
		{"on: a listener on 127.0.0.1", on, []string{"self", "dial", "tcp", allowed.Addr().String()}, "ok"},
		{"ports: the port allowed", ports, []string{"self", "dial", "tcp", allowed.Addr().String()}, "ok"},
		{"ports: another port", ports, []string{"self", "dial", "tcp", other.Addr().String()}, "permission denied"},
		{"ports: Multipath TCP, which Landlock does not see", ports, []string{"self", "mptcp"}, "protocol not supported"},
		{"a unix socket outside the sandbox", off, []string{"self", "dial", "unix", sock}, "permission denied"},
		{"a unix socket, allowed", unixOK, []string{"self", "dial", "unix", sock}, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := r.confined(t, tc.policy, r.worktree, tc.argv...)
			if !strings.Contains(o.out+o.stderr, tc.want) || (tc.want == "ok") != (o.code == 0) {
				t.Errorf("%v, want %q", o, tc.want)
			}
		})
	}
}

// The helper runs nothing without a valid policy on a pipe from git-tdd, and
// a refusal is told apart from the program's own failure.
func TestHelperRefuses(t *testing.T) {
	r := newRepo(t)
	helper := func(extra []*os.File, args ...string) (string, int) {
		cmd := exec.Command(os.Args[0], append([]string{HelperCommand}, args...)...)
		cmd.ExtraFiles = extra
		cmd.Env = r.env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("the helper ran: %v\n%s", err, out)
		}
		return string(out), ee.ExitCode()
	}
	pipe := func(data string) *os.File {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pw.WriteString(data)
		pw.Close()
		t.Cleanup(func() { pr.Close() })
		return pr
	}
	file, _ := os.Open(filepath.Join(r.home, ".profile"))
	defer file.Close()
	valid, _ := message{Path: "sh", Args: []string{"sh", "-c", "echo unconfined"}, Env: r.env}.encode()
	for _, tc := range []struct {
		name  string
		extra []*os.File
		args  []string
		want  string
	}{
		{"no policy", nil, nil, "runs nothing without one"},
		{"a command after it", nil, []string{"--", "sh", "-c", "echo unconfined"}, "runs nothing without one"},
		{"descriptors that are not open", nil, []string{"3", "4"}, "no report pipe"},
		{"standard input as the policy", []*os.File{pipe("")}, []string{"0", "3"}, "runs nothing without one"},
		{"a file, not a pipe", []*os.File{file, pipe("")}, []string{"3", "4"}, "no policy pipe"},
		{"garbage on the pipe", []*os.File{pipe("write=/"), pipe("")}, []string{"3", "4"}, "the policy is not valid"},
		{"the same pipe twice", []*os.File{pipe(string(valid))}, []string{"3", "3"}, "runs nothing without one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := helper(tc.extra, tc.args...)
			if code != 126 || !strings.Contains(out, tc.want) || strings.Contains(out, "unconfined\n") {
				t.Errorf("exit %d: %q, want 126 and %q", code, out, tc.want)
			}
		})
	}

	// an empty pipe is a prestarted helper git-tdd had nothing for
	// (Pending.Cancel): it runs nothing, quietly
	if out, code := helper([]*os.File{pipe(""), pipe("")}, "3", "4"); code != 125 || out != "" {
		t.Errorf("an empty pipe: exit %d: %q, want 125 and nothing said", code, out)
	}

	p := r.agentPolicy(t, nil)
	t.Run("a refusal is not the program's failure", func(t *testing.T) {
		gone := filepath.Join(r.root, "gone")
		os.Mkdir(gone, 0o755)
		q := p
		q.Write = append(q.Write, gone)
		cmd := exec.Command("true")
		cmd.Env = r.env
		w, err := q.Wrap(cmd)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(gone) // between the policy and the run
		err = cmd.Run()
		w.Started()
		var refused *RefusedError
		if rerr := w.Err(); !errors.As(rerr, &refused) || !strings.Contains(refused.Message, "gone") {
			t.Errorf("run: %v, helper: %v; want a refusal naming the missing path", err, rerr)
		}
	})
	t.Run("the program is looked up in its own PATH", func(t *testing.T) {
		bin := filepath.Join(r.worktree, "bin")
		os.Mkdir(bin, 0o755)
		os.WriteFile(filepath.Join(bin, "only-here"), []byte("#!/bin/sh\necho found\n"), 0o755)
		cmd := exec.Command("only-here")
		if cmd.Err == nil {
			t.Fatal("the test's PATH has only-here")
		}
		cmd.Env = append(r.env, "PATH="+bin+":"+os.Getenv("PATH"))
		var out bytes.Buffer
		cmd.Stdout = &out
		w, err := p.Wrap(cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Run()
		w.Started()
		if err != nil || w.Err() != nil || out.String() != "found\n" {
			t.Errorf("%v, %v, %q", err, w.Err(), out.String())
		}
	})
	t.Run("a program that is not there", func(t *testing.T) {
		cmd := exec.Command("no-such-program-anywhere")
		cmd.Env = r.env
		w, err := p.Wrap(cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Run()
		w.Started()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 127 {
			t.Errorf("exit %v, want 127", err)
		}
		if rerr := w.Err(); rerr == nil || !strings.Contains(rerr.Error(), "executable file not found") {
			t.Errorf("refusal %v", rerr)
		}
	})
}

// git tdd agent keeps its terminal: the program uses the one it is given, and
// /dev/tty, never another (the human's other windows); headless, /dev/tty does
// not open even where the program has a controlling terminal.
func TestTerminal(t *testing.T) {
	r := newRepo(t)
	other, otherTTY, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	defer otherTTY.Close()
	for _, tc := range []struct {
		keep bool
		want string
	}{{true, "0 0\non the terminal\nanother refused"}, {false, "/dev/tty: Permission denied\nanother refused"}} {
		t.Run(fmt.Sprint("Terminal=", tc.keep), func(t *testing.T) {
			p := r.agentPolicy(t, func(run *Run) { run.Terminal = tc.keep })
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			cmd := exec.Command("sh", "-c", `stty size </dev/tty && echo on the terminal >/dev/tty; head -c0 "$1" 2>/dev/null || echo another refused`,
				"sh", otherTTY.Name())
			cmd.Dir, cmd.Env = r.worktree, r.env
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
			w, err := p.Wrap(cmd)
			if err != nil {
				t.Fatal(err)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true} // its controlling terminal
			err = cmd.Start()
			w.Started()
			tty.Close()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			copied := make(chan struct{})
			go func() { io.Copy(&out, ptmx); close(copied) }() // until EIO: the terminal is closed
			cmd.Wait()
			<-copied
			if got := strings.ReplaceAll(out.String(), "\r\n", "\n"); !strings.Contains(got, tc.want) || w.Err() != nil {
				t.Errorf("on the terminal: %q, refused %v; want %q", got, w.Err(), tc.want)
			}
		})
	}
}

// A helper started ahead of its program (Prestart) runs what Send gives it,
// confined as Wrap's would; Cancel ends it having run nothing; a policy
// Send refuses runs nothing either.
func TestPrestart(t *testing.T) {
	r := newRepo(t)
	p := r.agentPolicy(t, nil)
	start := func() (*Pending, *confine.Proc, *bytes.Buffer) {
		var out bytes.Buffer
		cmd := exec.Command("ignored")
		cmd.Dir, cmd.Stdout, cmd.Stderr = r.worktree, &out, &out
		pd, err := Prestart(cmd)
		if err != nil {
			t.Fatal(err)
		}
		proc, err := confine.Start(cmd)
		pd.Started()
		if err != nil {
			t.Fatal(err)
		}
		return pd, proc, &out
	}

	pd, proc, out := start()
	outside := filepath.Join(r.root, "outside-prestart")
	script := `pwd; echo x > here.txt && echo wrote here; echo x > "$1" && echo wrote outside`
	if err := pd.Send(p, []string{"sh", "-c", script, "sh", outside}, r.env); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if err := pd.Err(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, r.worktree+"\nwrote here\n") || strings.Contains(got, "wrote outside") {
		t.Errorf("output %q: want it run in the worktree, writing only there", got)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the prestarted program wrote outside its worktree")
	}

	pd, proc, out = start()
	pd.Cancel()
	err := proc.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || out.Len() != 0 {
		t.Errorf("cancelled: %v, %q; want exit 125 and nothing said", err, out)
	}
	if err := pd.Err(); err != nil {
		t.Errorf("cancelled: the helper reported %v", err)
	}

	pd, proc, _ = start()
	bad := p
	bad.Deny = append(bad.Deny, bad.Write...)
	if err := pd.Send(bad, []string{"sh", "-c", "echo ran > ran.txt"}, r.env); err == nil {
		t.Error("Send accepted a policy that is not valid")
	}
	proc.Wait()
	if _, err := os.Stat(filepath.Join(r.worktree, "ran.txt")); err == nil {
		t.Error("a refused Send ran the program")
	}
}

// What confining costs a program that does nothing, against the same program
// started by confine alone: the helper's start, the readable set, Landlock
// and seccomp.
func BenchmarkConfinedTrue(b *testing.B) {
	r := newRepo(b)
	p := r.agentPolicy(b, nil)
	for b.Loop() {
		cmd := exec.Command("true")
		cmd.Dir, cmd.Env = r.worktree, r.env
		w, err := p.Wrap(cmd)
		if err != nil {
			b.Fatal(err)
		}
		proc, err := confine.Start(cmd)
		w.Started()
		if err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatal(err)
		}
		if err := w.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnconfinedTrue(b *testing.B) {
	for b.Loop() {
		proc, err := confine.Start(exec.Command("true"))
		if err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// A confined program runs as git-tdd's user, and prlimit(2) asks nothing
// more of it than that (Landlock has no hook for it): a test lowered
// git-tdd's RLIMIT_FSIZE, so that git-tdd's next write (git commit-tree: a
// red's commit) failed, or could lower the hard limits of the human's shell
// above git-tdd, which the human then cannot raise again. The guards refuse
// it (otherProcesses).
func TestConfinedCannotSetGitTddLimits(t *testing.T) {
	r := newRepo(t)
	o := r.confined(t, r.agentPolicy(t, nil), r.worktree, "self", "prlimit", strconv.Itoa(os.Getpid()))
	if o.code != 1 || !strings.Contains(o.out, "operation not permitted") {
		t.Errorf("set git-tdd's RLIMIT_CORE: %v, want it refused", o)
	}
}

// trySignalGuards loads signalGuards for its parent (the test) and its
// group, as a helper confined at ABI 5 would, and prints what each way of
// signalling them, and itself, gives.
func trySignalGuards() error {
	ppid := os.Getppid()
	pgid, err := unix.Getpgid(ppid)
	if err != nil {
		return err
	}
	if err := loadAsHelper(signalGuards(ppid, pgid), false); err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	defer w.Close()
	fd := int(r.Fd())
	owner := func(pid int) error { _, err := unix.FcntlInt(uintptr(fd), unix.F_SETOWN, pid); return err }
	raw := func(nr uintptr, args ...uintptr) error {
		a := append(args, 0, 0, 0)
		if _, _, e := unix.Syscall(nr, a[0], a[1], a[2]); e != 0 {
			return e
		}
		return nil
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"kill-parent", syscall.Kill(ppid, 0)},
		{"kill-group", syscall.Kill(-pgid, 0)},
		{"kill-all", syscall.Kill(-1, 0)},
		{"tgkill-parent", unix.Tgkill(ppid, ppid, 0)},
		{"sigqueue-parent", raw(unix.SYS_RT_SIGQUEUEINFO, uintptr(ppid), 0, 0)},
		{"tkill", raw(unix.SYS_TKILL, uintptr(unix.Gettid()), 0)},
		{"pidfd-open", raw(unix.SYS_PIDFD_OPEN, uintptr(ppid), 0)},
		{"setown-parent", owner(ppid)},
		{"setown-group", owner(-pgid)},
		{"pidfd-send", raw(unix.SYS_PIDFD_SEND_SIGNAL, uintptr(fd), 0, 0)},
		{"setown-ex", raw(unix.SYS_FCNTL, uintptr(fd), unix.F_SETOWN_EX, 0)},
		{"fiosetown", raw(unix.SYS_IOCTL, uintptr(fd), fioSetOwn, 0)},
		{"siocspgrp", raw(unix.SYS_IOCTL, uintptr(fd), siocSPgrp, 0)},
		{"kill-self", syscall.Kill(os.Getpid(), 0)},
		{"kill-own-group", syscall.Kill(0, 0)},
		{"setown-self", owner(os.Getpid())},
	} {
		res := "ok"
		if c.err != nil {
			res = unix.ErrnoName(c.err.(syscall.Errno))
		}
		fmt.Printf("%s=%s ", c.name, res)
	}
	return nil
}

// Before Landlock scopes signals (ABI 6), a confined program could kill or
// stop git-tdd mid-run (kill -9 $PPID, or -1), which left the worktree's .git
// file as the program had rewritten it. signalGuards, loaded on this kernel
// as a helper at ABI 5 loads them, refuse every way of naming git-tdd or its
// group, and leave a program's own signals alone.
func TestSignalGuardsOnThisKernel(t *testing.T) {
	cmd := exec.Command(os.Args[0], "signal-guards")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_DO=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"kill-parent=EPERM", "kill-group=EPERM", "kill-all=EPERM", "tgkill-parent=EPERM",
		"sigqueue-parent=EPERM", "tkill=EPERM", "pidfd-open=ENOSYS", "setown-parent=EPERM", "setown-group=EPERM",
		"pidfd-send=ENOSYS", "setown-ex=EPERM", "fiosetown=EPERM", "siocspgrp=EPERM",
		"kill-self=ok", "kill-own-group=ok", "setown-self=ok"} {
		if !strings.Contains(string(out), want+" ") {
			t.Errorf("want %s in %s", want, out)
		}
	}
}

// The guards apply where Landlock cannot scope signals, and only there.
func TestSignalGuardsBelowABI6(t *testing.T) {
	has := func(abi int) bool {
		for _, g := range guards(abi) {
			if g.call == "kill" {
				return true
			}
		}
		return false
	}
	for abi, want := range map[int]bool{1: true, 5: true, 6: false, 7: false} {
		if has(abi) != want {
			t.Errorf("ABI %d: signal guards %v, want %v", abi, has(abi), want)
		}
	}
}

// trySignalGuardsThread loads signalGuards for its parent as a helper at ABI
// 5 does, then names the parent by the id of one of its other threads (listed
// in /proc/<ppid>/task): kill(2), rt_sigqueueinfo(2) and F_SETOWN given a
// thread id reach the whole thread group, i.e. git-tdd.
func trySignalGuardsThread() error {
	ppid := os.Getppid()
	pgid, err := unix.Getpgid(ppid)
	if err != nil {
		return err
	}
	if err := loadAsHelper(signalGuards(ppid, pgid), true); err != nil {
		return err
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", ppid))
	if err != nil {
		return err
	}
	tid := 0
	for _, t := range tasks {
		if n, _ := strconv.Atoi(t.Name()); n != ppid && n > 0 {
			tid = n
			break
		}
	}
	if tid == 0 {
		return errors.New("the parent has one thread")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	defer w.Close()
	res := func(err error) string {
		if err == nil {
			return "ok"
		}
		return unix.ErrnoName(err.(syscall.Errno))
	}
	_, ownErr := unix.FcntlInt(r.Fd(), unix.F_SETOWN, tid)
	var si [128]byte
	*(*int32)(unsafe.Pointer(&si[8])) = -1 // si_code SI_QUEUE
	_, _, e := unix.Syscall(unix.SYS_RT_SIGQUEUEINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&si[0])))
	var qErr error
	if e != 0 {
		qErr = e
	}
	_, ownSelf := unix.FcntlInt(r.Fd(), unix.F_SETOWN, os.Getpid())
	fmt.Printf("kill-parent-thread=%s setown-parent-thread=%s sigqueue-parent-thread=%s kill-parent=%s kill-all=%s kill-self=%s kill-own-group=%s setown-self=%s ",
		res(syscall.Kill(tid, 0)), res(ownErr), res(qErr), res(syscall.Kill(ppid, 0)), res(syscall.Kill(-1, 0)),
		res(syscall.Kill(os.Getpid(), 0)), res(syscall.Kill(0, 0)), res(ownSelf))
	return nil
}

// A thread id of git-tdd names git-tdd to kill(2), rt_sigqueueinfo(2) and
// F_SETOWN as well as its pid does (the signal goes to the thread group):
// before ABI 6, `kill -STOP $(ls /proc/$PPID/task | tail -1)` stopped
// git-tdd. Those calls now go to git-tdd's supervisor, which refuses them
// (found by review): here the test is git-tdd, and its child the helper.
func TestSupervisorRefusesGitTddThreads(t *testing.T) {
	sup, end, err := newSupervisor()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "signal-guards-thread")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_DO=1")
	cmd.ExtraFiles = []*os.File{end}
	out, err := cmd.CombinedOutput()
	end.Close()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sup.Wait() // ends once the program has
	for _, want := range []string{"kill-parent-thread=EPERM", "setown-parent-thread=EPERM", "sigqueue-parent-thread=EPERM",
		"kill-parent=EPERM", "kill-all=EPERM", "kill-self=ok", "kill-own-group=ok", "setown-self=ok"} {
		if !strings.Contains(string(out), want+" ") {
			t.Errorf("want %s in %s", want, out)
		}
	}
}

// Before ABI 6 the helper gets a third file, the supervisor's socket: it
// takes it as such, closes it before the program runs (a program that held
// it could answer for itself), and runs the program as always. (Here, at
// this kernel's ABI, it hands nothing over: the supervisor then ends once the
// program starts. The hand-over itself: TestSupervisorRefusesGitTddThreads.)
func TestHelperTakesTheSupervisorsSocket(t *testing.T) {
	r := newRepo(t)
	p := r.agentPolicy(t, nil)
	script := `ls -l /proc/self/fd | grep -c socket; echo x > ran.txt`
	data, err := message{Policy: p, Path: "sh", Args: []string{"sh", "-c", script}, Env: r.env}.encode()
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWrapped(data, 5)
	if err != nil {
		t.Fatal(err)
	}
	if w.supervisor == nil || w.supervised == nil {
		t.Fatal("no supervisor below ABI 6")
	}
	exe, err := self()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("ignored")
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.worktree, &out, &out
	helperCommand(cmd, exe, w)
	if len(cmd.Args) != 5 {
		t.Fatalf("helper arguments %q, want the socket's too", cmd.Args)
	}
	proc, err := confine.Start(cmd)
	w.Started()
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	w.supervisor.Wait()
	if got := strings.TrimSpace(out.String()); got != "0" {
		t.Errorf("sockets the program holds: %q, want none", got)
	}
	if _, err := os.Stat(filepath.Join(r.worktree, "ran.txt")); err != nil {
		t.Error("the program did not run")
	}
}

// loadAsHelper loads, on this thread (locked to it for good), what a helper
// confined at ABI 5 loads: guards gs, and with supervised the supervising
// program, whose listener goes to git-tdd (the parent) over fd 3.
func loadAsHelper(gs []guard, supervised bool) error {
	runtime.LockOSThread()
	info, err := arch.GetInfo("")
	if err != nil {
		return err
	}
	prog, err := assembleGuards(info, gs)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if err := loadFilter(prog); err != nil {
		return err
	}
	if !supervised {
		return nil
	}
	return handOver(3, uint32(info.ID))
}
