package sandbox

import (
	"errors"
	"fmt"
	"github.com/elastic/go-seccomp-bpf/arch"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// run restricts this thread to m's policy and execs m's program on it; it
// returns only what kept the program from starting. Every check that can fail
// comes before the first restriction, so that a refusal is said plainly.
func run(m message, supervised int) error {
	runtime.LockOSThread() // never unlocked: the restrictions are this thread's, and it execs
	p := m.Policy
	st, err := Probe()
	if err != nil {
		return err
	}
	if err := st.Check(p); err != nil {
		return err
	}
	path, err := lookPath(m.Path, m.Env)
	if err != nil {
		return &execError{code: 127, err: fmt.Errorf("sandbox: %w", err)}
	}
	if err := restrict(p, st.ABI, supervised); err != nil {
		return err
	}
	err = syscall.Exec(path, m.Args, m.Env)
	return &execError{code: 126, err: fmt.Errorf("sandbox: cannot run %s in the sandbox: %w", path, err)}
}

// restrict confines the calling thread, which must be locked to its
// goroutine for good, and all it starts, to p at this ABI: Landlock, no
// capabilities, no_new_privs, the seccomp filters. Every check that can fail
// comes before the first restriction. On an error the thread may be partly
// restricted: its goroutine must end without unlocking it, so that the Go
// runtime ends the thread.
func restrict(p Policy, abi, supervised int) error {
	if supervises(abi) && supervised < 0 {
		return errors.New("sandbox: git-tdd gave no supervisor for the program's signals, which Landlock does not scope before ABI 6")
	}
	cfg := config(p, abi)
	grants, err := rules(p, cfg)
	if err != nil {
		return err
	}
	ruleset, flags, err := cfg.NewRulesetFD(grants...)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if ruleset < 0 {
		return errors.New("sandbox: the Landlock ruleset is empty") // Config restricts: never
	}
	defer unix.Close(ruleset)
	progs, err := filters(p, abi)
	if err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("sandbox: dropping capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: setting no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(ruleset, flags); err != nil {
		return fmt.Errorf("sandbox: enforcing Landlock: %w", err)
	}
	for _, prog := range progs {
		if err := loadFilter(prog); err != nil {
			return fmt.Errorf("sandbox: loading the seccomp filter: %w", err)
		}
	}
	if !supervises(abi) {
		return nil
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := handOver(supervised, uint32(info.ID)); err != nil {
		return fmt.Errorf("sandbox: handing git-tdd the supervision of the program's signals: %w", err)
	}
	return nil
}

func isSocket(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK
}

// lookPath finds the program as exec.Command would, in the PATH of the
// program's own environment (the last PATH in env), not this process's.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		path := filepath.Join(dir, name)
		if executable(path) != nil {
			continue
		}
		if !filepath.IsAbs(path) {
			return path, &exec.Error{Name: name, Err: exec.ErrDot}
		}
		return path, nil
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// executable is exec.LookPath's test of a file: not a directory, and
// executable by this process.
func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return syscall.EISDIR
	}
	err = unix.Faccessat(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS)
	if err == nil || !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EPERM) {
		return err
	}
	if fi.Mode()&0o111 != 0 {
		return nil
	}
	return fs.ErrPermission
}

// Filesystem rights.
const (
	readRights     = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	readFileRights = ll.AccessFSExecute | ll.AccessFSReadFile
	fileRights     = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	deviceRights   = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// presets are go-landlock's full configurations, by ABI version.
var presets = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// config is what Landlock restricts at this ABI: every filesystem right it
// has; TCP where the network is off or limited to ports; signals, and
// abstract unix sockets unless allowed.
func config(p Policy, abi int) landlock.Config {
	cfg := landlock.Config{HandledAccessFS: presets[min(abi, len(presets))-1].HandledAccessFS}
	if p.UnixSockets {
		cfg.HandledAccessFS &^= ll.AccessFSResolveUnix
	}
	if abi >= netABI && (!p.Network || len(p.Ports) > 0) {
		cfg.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 6 {
		cfg.Scoped = ll.ScopeSignal
		if !p.UnixSockets {
			cfg.Scoped |= ll.ScopeAbstractUnixSocket
		}
	}
	return cfg
}

// devices are the device files every program may use.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// rules are the grants: everything readable but Deny and /dev (Readable), the
// Read and Write paths, the devices, the terminal if kept, and the TCP ports.
func rules(p Policy, cfg landlock.Config) ([]landlock.Rule, error) {
	handled := cfg.HandledAccessFS
	grant := func(dirRights, fileRights landlock.AccessFSSet, path string, isDir bool) landlock.Rule {
		if isDir {
			return landlock.PathAccess(handled&dirRights, path).IgnoreIfMissing()
		}
		return landlock.PathAccess(handled&fileRights, path).IgnoreIfMissing()
	}
	roots, err := Readable("/", append([]string{"/dev"}, p.Deny...), os.ReadDir)
	if err != nil {
		return nil, err
	}
	var rs []landlock.Rule
	for _, r := range roots {
		rs = append(rs, grant(readRights, readFileRights, r.Path, r.Dir))
	}
	for _, path := range p.Read {
		r, err := explicit(path, handled&readRights, handled&readFileRights)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	for _, path := range p.Write {
		r, err := explicit(path, handled, handled&fileRights)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	for _, d := range devices {
		rs = append(rs, grant(0, deviceRights, d, false))
	}
	if p.Terminal {
		for _, t := range terminals() {
			rs = append(rs, grant(0, deviceRights, t, false))
		}
	}
	for _, port := range p.Ports {
		rs = append(rs, landlock.ConnectTCP(port))
	}
	return rs, nil
}

// explicit grants a path of the policy, which must exist, the rights of a
// directory or of a file.
func explicit(path string, dirRights, fileRights landlock.AccessFSSet) (landlock.Rule, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if fi.IsDir() {
		return landlock.PathAccess(dirRights, path), nil
	}
	return landlock.PathAccess(fileRights, path), nil
}

// terminals are /dev/tty and the terminals the program is given as its
// standard input, output and error.
func terminals() []string {
	ts := []string{"/dev/tty"}
	for fd := 0; fd <= 2; fd++ {
		if !term.IsTerminal(fd) {
			continue
		}
		if t, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil && strings.HasPrefix(t, "/dev/") {
			ts = append(ts, t)
		}
	}
	return ts
}

// dropCapabilities leaves this thread, and what it executes, no capability:
// none in the bounding set, so that executing as root gives none back, none
// ambient, none held. A process that holds none has nothing to drop.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		// nothing held, nothing to gain from executing (no_new_privs)
		data = [2]unix.CapUserData{}
		return unix.Capset(&hdr, &data[0])
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return err
		}
	}
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}

func isPipe(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

func closeOnExec(fd int) { unix.CloseOnExec(fd) }

// self is the binary that runs, even if its file was replaced since.
func self() (string, error) {
	const exe = "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		return "", fmt.Errorf("sandbox: git-tdd starts itself again from %s: %w", exe, err)
	}
	return exe, nil
}

// fitPipe makes the pipe w large enough to hold n bytes.
func fitPipe(w *os.File, n int) error {
	size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil || size >= n {
		return err
	}
	_, err = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, n)
	return err
}
