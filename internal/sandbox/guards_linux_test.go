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
