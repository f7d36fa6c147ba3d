package sandbox

import (
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The guards' program, run on system calls as the kernel gives them: what
// each refuses, and what it lets through (one's own limits and priority, a
// pointer whose low half is zero, another architecture's calls).
func TestGuards(t *testing.T) {
	info, err := arch.GetInfo("")
	if err != nil {
		t.Skip(err)
	}
	raw, err := assembleGuards(info, otherProcesses())
	if err != nil {
		t.Fatal(err)
	}
	prog := make([]bpf.Instruction, len(raw))
	for i, r := range raw {
		prog[i] = r.Disassemble()
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	// seccomp_data as the kernel's loads read it: each 32-bit word native
	// (an argument's low half first, little-endian), which the VM, made for
	// packets, loads big-endian
	call := func(name string, archID uint32, args ...uint64) uint32 {
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[0:], uint32(info.SyscallNames[name]))
		binary.BigEndian.PutUint32(data[4:], archID)
		for i, a := range args {
			binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
			binary.BigEndian.PutUint32(data[16+8*i+4:], uint32(a>>32))
		}
		out, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(out)
	}
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	id := uint32(info.ID)
	for _, tc := range []struct {
		name string
		call string
		args []uint64
		want uint32
	}{
		{"set another's limit", "prlimit64", []uint64{1234, unix.RLIMIT_FSIZE, 0x7ffd1000, 0}, eperm},
		{"set another's limit, a pointer above 4 GiB with a zero low half", "prlimit64", []uint64{1234, unix.RLIMIT_FSIZE, 0x7f0000000000, 0}, eperm},
		{"read another's limit", "prlimit64", []uint64{1234, unix.RLIMIT_FSIZE, 0, 0x7ffd1000}, allow},
		{"set its own limit (setrlimit)", "prlimit64", []uint64{0, unix.RLIMIT_FSIZE, 0x7ffd1000, 0}, allow},
		{"a pid whose low half is zero is pid 0", "prlimit64", []uint64{1 << 32, unix.RLIMIT_FSIZE, 0x7ffd1000, 0}, allow},
		{"renice itself", "setpriority", []uint64{unix.PRIO_PROCESS, 0, 5}, allow},
		{"renice another", "setpriority", []uint64{unix.PRIO_PROCESS, 1234, 19}, eperm},
		{"renice every process of the user", "setpriority", []uint64{unix.PRIO_USER, 0, 19}, eperm},
		{"renice a process group", "setpriority", []uint64{unix.PRIO_PGRP, 0, 19}, eperm},
		{"its own I/O priority", "ioprio_set", []uint64{1, 0, 0}, allow},
		{"the user's I/O priority", "ioprio_set", []uint64{3, 0, 0}, eperm},
		{"its own CPUs", "sched_setaffinity", []uint64{0, 8, 0x7ffd1000}, allow},
		{"another's CPUs", "sched_setaffinity", []uint64{1234, 8, 0x7ffd1000}, eperm},
		{"another's scheduler", "sched_setscheduler", []uint64{1234, 5, 0x7ffd1000}, eperm},
		{"a call that has no guard", "read", []uint64{0, 0x7ffd1000, 10}, allow},
	} {
		if got := call(tc.call, id, tc.args...); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
	if got := call("prlimit64", id+1, 1234, unix.RLIMIT_FSIZE, 0x7ffd1000); got != allow {
		t.Errorf("another architecture's call: %#x, want it left to the other programs", got)
	}
}

// What the supervisor refuses: git-tdd named by any of its threads, its
// process group or every process, to kill, rt_sigqueueinfo and F_SETOWN; not
// another process, the program's own group, nor other fcntl commands.
func TestRefusedSignal(t *testing.T) {
	const self, group = 1000, 990
	own := func(tid, _ int) bool { return tid >= 1000 && tid <= 1010 } // git-tdd's threads
	call := notice
	for _, tc := range []struct {
		name string
		d    seccompData
		want bool
	}{
		{"kill git-tdd", call(unix.SYS_KILL, 1000, 9), true},
		{"kill one of git-tdd's threads", call(unix.SYS_KILL, 1007, 19), true},
		{"kill git-tdd's process group", call(unix.SYS_KILL, -990, 9), true},
		{"kill every process", call(unix.SYS_KILL, -1, 9), true},
		{"kill another process", call(unix.SYS_KILL, 2000, 9), false},
		{"kill its own group", call(unix.SYS_KILL, 0, 15), false},
		{"kill another group", call(unix.SYS_KILL, -2000, 15), false},
		{"a pid in the upper half only", call(unix.SYS_KILL, 1<<32|2000, 9), false},
		{"queue a signal to one of git-tdd's threads", call(unix.SYS_RT_SIGQUEUEINFO, 1003, 10, 0), true},
		{"queue a signal to another", call(unix.SYS_RT_SIGQUEUEINFO, 2000, 10, 0), false},
		{"SIGIO to one of git-tdd's threads", call(unix.SYS_FCNTL, 3, unix.F_SETOWN, 1004), true},
		{"SIGIO to git-tdd's group", call(unix.SYS_FCNTL, 3, unix.F_SETOWN, -990), true},
		{"SIGIO to itself", call(unix.SYS_FCNTL, 3, unix.F_SETOWN, 2000), false},
		{"another fcntl naming a thread's number", call(unix.SYS_FCNTL, 3, unix.F_SETFL, 1004), false},
		{"another call", call(unix.SYS_READ, 1000, 0, 0), false},
	} {
		if got := refusedSignal(tc.d, self, group, own); got != tc.want {
			t.Errorf("%s: refused %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A number that names nothing gets ESRCH from the supervisor itself, not
// from the kernel later: by then it could be a thread git-tdd just made.
func TestSignalAnswer(t *testing.T) {
	own := func(tid, _ int) bool { return tid == 1000 }
	there := func(pid int) bool { return pid == 1000 || pid == 2000 }
	d := notice
	for _, tc := range []struct {
		name string
		d    seccompData
		want unix.Errno
	}{
		{"git-tdd", d(unix.SYS_KILL, 1000, 9), unix.EPERM},
		{"another process", d(unix.SYS_KILL, 2000, 9), 0},
		{"nothing there", d(unix.SYS_KILL, 3000, 9), unix.ESRCH},
		{"nothing there, queued", d(unix.SYS_RT_SIGQUEUEINFO, 3000, 9, 0), unix.ESRCH},
		{"SIGIO to nothing there", d(unix.SYS_FCNTL, 3, unix.F_SETOWN, 3000), unix.ESRCH},
		{"SIGIO to another", d(unix.SYS_FCNTL, 3, unix.F_SETOWN, 2000), 0},
		{"another fcntl", d(unix.SYS_FCNTL, 3, unix.F_GETFL, 3000), 0},
		{"its own group", d(unix.SYS_KILL, 0, 9), 0},
		{"another group", d(unix.SYS_KILL, -3000, 9), 0},
	} {
		if got := signalAnswer(tc.d, 1000, 990, own, there); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// notice is a supervised call as the kernel reports it.
func notice(nr int, args ...int64) seccompData {
	d := seccompData{Nr: int32(nr)}
	for i, a := range args {
		d.Args[i] = uint64(a)
	}
	return d
}
