package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// call is a system call as the filter sees it (struct seccomp_data).
type call struct {
	name string
	args [6]uint64
	arch uint32 // 0: this machine's
	nr   uint32 // with name "": the raw number
}

// decide runs the programs on c as the kernel does: every program, the
// strictest answer (the lowest action; the last program's among equals).
func decide(t *testing.T, progs [][]bpf.RawInstruction, c call) uint32 {
	t.Helper()
	info, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	// x/net/bpf's machine loads words big-endian; the kernel's are the
	// machine's own: each 32-bit word is written as the filter reads it.
	data := make([]byte, 64)
	nr := c.nr
	if c.name != "" {
		n, ok := info.SyscallNames[c.name]
		if !ok {
			t.Fatalf("no %s on %s", c.name, runtime.GOARCH)
		}
		nr = uint32(n)
	}
	a := c.arch
	if a == 0 {
		a = uint32(info.ID)
	}
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], a)
	for i, v := range c.args {
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(v))       // lower half first: little-endian
		binary.BigEndian.PutUint32(data[16+8*i+4:], uint32(v>>32)) // then the upper
	}
	verdict := uint32(unix.SECCOMP_RET_ALLOW)
	for _, prog := range progs {
		ins := make([]bpf.Instruction, len(prog))
		for i, r := range prog {
			ins[i] = r.Disassemble()
		}
		vm, err := bpf.NewVM(ins)
		if err != nil {
			t.Fatal(err)
		}
		got, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		// the kernel compares actions as signed: KILL_PROCESS is the lowest
		if v := uint32(got); int32(v&unix.SECCOMP_RET_ACTION_FULL) <= int32(verdict&unix.SECCOMP_RET_ACTION_FULL) {
			verdict = v
		}
	}
	return verdict
}

func TestFilter(t *testing.T) {
	const (
		allow = unix.SECCOMP_RET_ALLOW
		kill  = unix.SECCOMP_RET_KILL_PROCESS
	)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	socket := func(family, typ, proto uint64) call { return call{name: "socket", args: [6]uint64{family, typ, proto}} }
	off, on := Policy{}, Policy{Network: true}
	ports := Policy{Network: true, Ports: []uint16{443}}
	unixOK := Policy{UnixSockets: true}
	high := uint64(1) << 32
	for _, tc := range []struct {
		name   string
		policy Policy
		abi    int
		call   call
		want   uint32
	}{
		{"read", off, 7, call{name: "read"}, allow},
		{"off: inet", off, 7, socket(unix.AF_INET, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"off: inet6", off, 7, socket(unix.AF_INET6, unix.SOCK_DGRAM, 0), errno(unix.EACCES)},
		{"off: packet", off, 7, socket(unix.AF_PACKET, unix.SOCK_RAW, 0), errno(unix.EACCES)},
		{"off: vsock", off, 7, socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"off: netlink", off, 7, socket(unix.AF_NETLINK, unix.SOCK_RAW, 0), allow},
		{"off: unix before ABI 9", off, 7, socket(unix.AF_UNIX, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"off: unix from ABI 9", off, 9, socket(unix.AF_UNIX, unix.SOCK_STREAM, 0), allow},
		{"unix allowed", unixOK, 7, socket(unix.AF_UNIX, unix.SOCK_STREAM, 0), allow},
		{"unix allowed, upper half set", unixOK, 7, socket(high|unix.AF_UNIX, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"off: inet, upper half set", off, 7, socket(high|unix.AF_INET, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"on: inet", on, 7, socket(unix.AF_INET, unix.SOCK_STREAM, 0), allow},
		{"on: mptcp", on, 7, socket(unix.AF_INET, unix.SOCK_STREAM, ipprotoMPTCP), allow},
		{"on: unix still refused", on, 7, socket(unix.AF_UNIX, unix.SOCK_STREAM, 0), errno(unix.EACCES)},
		{"ports: tcp", ports, 7, socket(unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP), allow},
		{"ports: udp", ports, 7, socket(unix.AF_INET, unix.SOCK_DGRAM, 0), allow},
		{"ports: mptcp", ports, 7, socket(unix.AF_INET, unix.SOCK_STREAM, ipprotoMPTCP), errno(unix.EPROTONOSUPPORT)},
		{"ports: mptcp6", ports, 7, socket(unix.AF_INET6, unix.SOCK_STREAM, ipprotoMPTCP), errno(unix.EPROTONOSUPPORT)},
		{"ports: mptcp, upper half set", ports, 7, socket(unix.AF_INET, unix.SOCK_STREAM, high|ipprotoMPTCP), errno(unix.EACCES)},
		{"ports: sctp", ports, 7, socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP), errno(unix.EACCES)},
		{"ioctl TIOCSTI", off, 7, call{name: "ioctl", args: [6]uint64{0, unix.TIOCSTI}}, errno(unix.EPERM)},
		{"ioctl TIOCSTI, upper half set", off, 7, call{name: "ioctl", args: [6]uint64{0, high | unix.TIOCSTI}}, errno(unix.EPERM)},
		{"ioctl TIOCLINUX", on, 7, call{name: "ioctl", args: [6]uint64{0, unix.TIOCLINUX}}, errno(unix.EPERM)},
		{"ioctl TCGETS", off, 7, call{name: "ioctl", args: [6]uint64{0, unix.TCGETS}}, allow},
		{"io_uring_setup", on, 7, call{name: "io_uring_setup"}, errno(unix.ENOSYS)},
		{"keyctl", off, 7, call{name: "keyctl"}, errno(unix.EPERM)},
		{"add_key", off, 7, call{name: "add_key"}, errno(unix.EPERM)},
		{"another architecture", ports, 7, call{nr: 1, arch: 0x40000003 /* AUDIT_ARCH_I386 */}, kill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			progs, err := filters(tc.policy, tc.abi)
			if err != nil {
				t.Fatal(err)
			}
			if got := decide(t, progs, tc.call); got != tc.want {
				t.Errorf("%#x, want %#x", got, tc.want)
			}
		})
	}
	if runtime.GOARCH == "amd64" {
		progs, _ := filters(off, 7)
		if got := decide(t, progs, call{nr: 0x40000000 | 41 /* x32 socket */}); got != errno(unix.ENOSYS) {
			t.Errorf("an x32 call: %#x, want ENOSYS", got)
		}
	}
}
