package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// A guard refuses a system call, with errno, when all its conditions on the
// call's arguments hold. Guards are assembled by hand (assembleGuards): the
// library compares one call with arguments per program.
type guard struct {
	call  string
	when  []argTest
	errno syscall.Errno
}

// argTest is a condition on argument arg: its lower 32 bits equal (or, with
// not, differ from) val, as the kernel reads an int or a pid_t; or, with
// wide, the whole 64 bits (a pointer) are not zero.
type argTest struct {
	arg  uint32
	not  bool
	val  uint32
	wide bool
}

func is(arg, val uint32) argTest    { return argTest{arg: arg, val: val} }
func isNot(arg, val uint32) argTest { return argTest{arg: arg, val: val, not: true} }
func nonNull(arg uint32) argTest    { return argTest{arg: arg, wide: true} }

// otherProcesses are the guards that keep a confined program to itself: no
// resource limit, priority, I/O priority or scheduling of another process
// (nor of a process group, nor of every process of the user), which a
// program of the human's user may otherwise change without asking anything
// more (Landlock has no check for them). A hard limit lowered on the human's
// shell cannot be raised again; RLIMIT_FSIZE at 0 fails git-tdd's next
// write. Reading another's limits, and changing one's own (pid 0, as libc's
// setrlimit, nice and sched_setaffinity call them), still work.
func otherProcesses() []guard {
	eperm := syscall.EPERM
	var gs []guard
	gs = append(gs, guard{"prlimit64", []argTest{isNot(0, 0), nonNull(2)}, eperm},
		guard{"setpriority", []argTest{isNot(0, unix.PRIO_PROCESS)}, eperm},
		guard{"setpriority", []argTest{isNot(1, 0)}, eperm},
		guard{"ioprio_set", []argTest{isNot(0, 1)}, eperm}, // IOPRIO_WHO_PROCESS
		guard{"ioprio_set", []argTest{isNot(1, 0)}, eperm})
	for _, call := range []string{"sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"} {
		gs = append(gs, guard{call, []argTest{isNot(0, 0)}, eperm})
	}
	return gs
}

// signalGuards keep a confined program from signalling git-tdd (pid, and its
// process group pgid) and every process of the user at once (kill -1), where
// Landlock cannot (before ABI 6, which scopes signals to the sandbox): a
// program that killed or stopped git-tdd mid-run would leave the worktree's
// .git file as it had rewritten it, for the next git command to follow to a
// git dir of its making (see GitFile). The calls that name a process by
// value are refused for those values; tkill names only a thread (git-tdd's
// are listed in /proc), and a pidfd can come from opening /proc/<pid>, so
// both are refused whatever they name (tkill is obsolete; a program that
// finds no pidfds, as Go's runtime, falls back to kill); and so are the
// owners of SIGIO that only a pointer names (F_SETOWN_EX, FIOSETOWN,
// SIOCSPGRP).
func signalGuards(pid, pgid int) []guard {
	eperm, enosys := syscall.EPERM, syscall.ENOSYS
	self, group, all := uint32(int32(pid)), uint32(-int32(pgid)), ^uint32(0)
	var gs []guard
	for _, v := range []uint32{self, group, all} {
		gs = append(gs, guard{"kill", []argTest{is(0, v)}, eperm},
			guard{"fcntl", []argTest{is(1, unix.F_SETOWN), is(2, v)}, eperm})
	}
	for _, call := range []string{"tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"} {
		gs = append(gs, guard{call, []argTest{is(0, self)}, eperm})
	}
	gs = append(gs, guard{"tkill", nil, eperm},
		guard{"pidfd_open", nil, enosys},
		guard{"pidfd_send_signal", nil, enosys},
		guard{"fcntl", []argTest{is(1, unix.F_SETOWN_EX)}, eperm},
		guard{"ioctl", []argTest{is(1, fioSetOwn)}, eperm},
		guard{"ioctl", []argTest{is(1, siocSPgrp)}, eperm})
	return gs
}

// The ioctls that set a socket's or a file's SIGIO owner, as
// asm-generic/sockios.h numbers them (x/sys/unix does not name them).
const (
	fioSetOwn = 0x8901
	siocSPgrp = 0x8902
)

// guards are the guards a program confined at this ABI gets, its parent
// (git-tdd, which starts the helper) protected where Landlock cannot.
func guards(abi int) []guard {
	gs := otherProcesses()
	if abi < 6 {
		ppid := os.Getppid()
		pgid, err := unix.Getpgid(ppid)
		if err != nil {
			pgid = ppid
		}
		gs = append(gs, signalGuards(ppid, pgid)...)
		if unix.Getpgrp() == pgid {
			// git tdd agent's agent, in git-tdd's group (its terminal's
			// foreground): kill(0) would reach git-tdd, and a program
			// that left the group can join it again
			gs = append(gs, guard{"kill", []argTest{is(0, 0)}, syscall.EPERM})
		}
	}
	return gs
}

// assembleGuards is one program for the guards of this architecture; a call
// of another architecture is left to the other programs (which kill it).
func assembleGuards(info *arch.Info, guards []guard) ([]bpf.RawInstruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	}
	for _, g := range guards {
		nr, ok := info.SyscallNames[g.call]
		if !ok {
			continue // not on this architecture
		}
		block, err := guardBlock(uint32(nr), g)
		if err != nil {
			return nil, err
		}
		prog = append(prog, block...)
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	return bpf.Assemble(prog)
}

// guardBlock tests one guard; any test that fails skips to the block's end,
// where the next guard's begins.
func guardBlock(nr uint32, g guard) ([]bpf.Instruction, error) {
	type jump struct {
		at       int
		whenTrue bool // the failing branch is the true one
	}
	var block []bpf.Instruction
	var fails []jump
	lo := func(arg uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: 16 + 8*arg, Size: 4} }
	hi := func(arg uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: 16 + 8*arg + 4, Size: 4} }
	block = append(block, bpf.LoadAbsolute{Off: 0, Size: 4}) // seccomp_data.nr
	fails = append(fails, jump{at: len(block)})
	block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr})
	for _, t := range g.when {
		switch {
		case t.wide:
			// the low half not zero: it holds; else the high half decides
			block = append(block, lo(t.arg), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 2}, hi(t.arg))
			fails = append(fails, jump{at: len(block), whenTrue: true})
			block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0})
		case t.not:
			block = append(block, lo(t.arg))
			fails = append(fails, jump{at: len(block), whenTrue: true})
			block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.val})
		default:
			block = append(block, lo(t.arg))
			fails = append(fails, jump{at: len(block)})
			block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.val})
		}
	}
	block = append(block, bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(g.errno)})
	for _, f := range fails {
		skip := len(block) - f.at - 1
		if skip > 255 {
			return nil, fmt.Errorf("sandbox: the guard of %s is too long", g.call)
		}
		j := block[f.at].(bpf.JumpIf)
		if f.whenTrue {
			j.SkipTrue = uint8(skip)
		} else {
			j.SkipFalse = uint8(skip)
		}
		block[f.at] = j
	}
	return block, nil
}
