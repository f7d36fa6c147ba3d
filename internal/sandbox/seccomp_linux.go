package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// ipprotoMPTCP is Multipath TCP's protocol number, which Landlock's TCP
// rules do not cover.
const ipprotoMPTCP = 262

// filters are the seccomp programs for p (see the package documentation),
// loaded in turn: a system call of
// another architecture (i386 on amd64) kills the process; TIOCSTI and
// TIOCLINUX, the kernel keyrings and io_uring are refused; socket(2) makes
// only the families p allows, and with p.Ports no Multipath TCP socket; no
// other process's limits or priorities change (otherProcesses); and before
// Landlock scopes signals (ABI 6), git-tdd gets none (signalGuards).
//
// go-seccomp-bpf v1.6.0 compares a call's arguments in the accumulator, and
// what follows a failed comparison compares the next group's system calls
// with that argument instead of the call's number: so a program holds one
// system call with arguments, in its last group, and another needs a program
// of its own.
func filters(p Policy, abi int) ([][]bpf.RawInstruction, error) {
	info, err := arch.GetInfo("") // the library builds for this one

	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	main, err := assemble(info, append(refused(), sockets(p, abi)))
	if err != nil {
		return nil, err
	}
	// The library compares whole 64-bit arguments; the kernel reads an
	// ioctl's request as 32 bits, so its upper half could hide TIOCSTI: the
	// request is compared here, on its lower half only.
	prefix := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.SyscallNames["ioctl"]), SkipFalse: 4},
		bpf.LoadAbsolute{Off: 16 + 8*1, Size: 4}, // the lower half of args[1], little-endian
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
	}
	first, err := bpf.Assemble(append(prefix, main...))
	if err != nil {
		return nil, err
	}
	guards, err := assembleGuards(info, guards(abi))
	if err != nil {
		return nil, err
	}
	progs := [][]bpf.RawInstruction{first, guards}
	if p.Network && len(p.Ports) > 0 {
		mptcp, err := assemble(info, []seccomp.SyscallGroup{{Action: errno(unix.EPROTONOSUPPORT),
			NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "socket", Conditions: seccomp.ArgumentConditions{eq(0, unix.AF_INET), eq(2, ipprotoMPTCP)}},
				{Name: "socket", Conditions: seccomp.ArgumentConditions{eq(0, unix.AF_INET6), eq(2, ipprotoMPTCP)}}}}})
		if err != nil {
			return nil, err
		}
		raw, err := bpf.Assemble(mptcp)
		if err != nil {
			return nil, err
		}
		progs = append(progs, raw)
	}
	return progs, nil
}

func assemble(info *arch.Info, groups []seccomp.SyscallGroup) ([]bpf.Instruction, error) {
	for i := range groups {
		groups[i].Names = knownNames(info, groups[i].Names)
	}
	lib := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
	ins, err := lib.Assemble()
	if err != nil {
		return nil, fmt.Errorf("sandbox: building the seccomp filter: %w", err)
	}
	return ins, nil
}

func errno(e syscall.Errno) seccomp.Action { return seccomp.ActionErrno | seccomp.Action(e) }

func eq(arg uint32, v int) seccomp.Condition {
	return seccomp.Condition{Argument: arg, Operation: seccomp.Equal, Value: uint64(v)}
}

func ne(arg uint32, v int) seccomp.Condition {
	return seccomp.Condition{Argument: arg, Operation: seccomp.NotEqual, Value: uint64(v)}
}

// refused are the calls refused whatever their arguments.
func refused() []seccomp.SyscallGroup {
	return []seccomp.SyscallGroup{
		{Action: errno(unix.ENOSYS), Names: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}},
		{Action: errno(unix.EPERM), Names: []string{"keyctl", "add_key", "request_key"}},
	}
}

// sockets refuses socket(2) (EACCES) for a family p does not allow, and with
// p.Ports, for an internet protocol but TCP, UDP, ICMP and Multipath TCP
// (which the second program refuses, so that programs fall back to TCP).
// Whole 64-bit arguments are compared: a value whose upper half is set is
// allowed by none, and refused.
func sockets(p Policy, abi int) seccomp.SyscallGroup {
	families := []int{unix.AF_NETLINK}
	if p.UnixSockets || abi >= 9 { // from ABI 9, Landlock decides where it connects
		families = append(families, unix.AF_UNIX)
	}
	if p.Network {
		families = append(families, unix.AF_INET, unix.AF_INET6)
	}
	var notAllowed seccomp.ArgumentConditions
	for _, f := range families {
		notAllowed = append(notAllowed, ne(0, f))
	}
	sets := []seccomp.ArgumentConditions{notAllowed}
	if p.Network && len(p.Ports) > 0 {
		for _, f := range [][2]int{{unix.AF_INET, unix.IPPROTO_ICMP}, {unix.AF_INET6, unix.IPPROTO_ICMPV6}} {
			sets = append(sets, seccomp.ArgumentConditions{eq(0, f[0]),
				ne(2, 0), ne(2, unix.IPPROTO_TCP), ne(2, unix.IPPROTO_UDP), ne(2, f[1]), ne(2, ipprotoMPTCP)})
		}
	}
	g := seccomp.SyscallGroup{Action: errno(unix.EACCES)}
	for _, set := range sets { // one call: its sets are alternatives
		g.NamesWithCondtions = append(g.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket", Conditions: set})
	}
	return g
}

// knownNames drops the calls an architecture does not have.
func knownNames(info *arch.Info, names []string) []string {
	var known []string
	for _, n := range names {
		if _, ok := info.SyscallNames[n]; ok {
			known = append(known, n)
		}
	}
	return known
}

// loadFilter loads prog on this thread; no_new_privs is set.
func loadFilter(prog []bpf.RawInstruction) error {
	_, err := loadFilterFlags(prog, 0)
	return err
}

// loadFilterFlags loads prog with flags, and returns what the kernel
// returns: with SECCOMP_FILTER_FLAG_NEW_LISTENER, the notifications' file.
func loadFilterFlags(prog []bpf.RawInstruction, flags uintptr) (int, error) {
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}
