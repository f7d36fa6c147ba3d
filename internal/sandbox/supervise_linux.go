package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Signals, before Landlock scopes them (ABI 6). kill(2), rt_sigqueueinfo(2)
// and fcntl(F_SETOWN) name a process by any of its thread ids, which no
// seccomp program can tell from another process's (a program reads git-tdd's
// in /proc/<pid>/task), and a program that stopped or killed git-tdd mid-run
// would leave the worktree's .git file as it had rewritten it (see GitFile).
// So those calls of a confined program go to git-tdd
// (SECCOMP_RET_USER_NOTIF), which refuses the ones that name one of its own
// threads, its process group or every process (-1), and lets the kernel carry
// out the rest (SECCOMP_USER_NOTIF_FLAG_CONTINUE: the target is a number the
// kernel read, not memory the program could change after the check). The
// helper hands git-tdd the notifications' file over a socket pair and keeps
// no copy: a program that held it could answer for itself. Once git-tdd is
// gone, the calls fail (ENOSYS).

// supervises reports whether a program confined at this ABI needs git-tdd
// to answer for its signals.
func supervises(abi int) bool { return abi < 6 }

// Supervisor answers for the signals of the programs one helper confines.
type Supervisor struct {
	sock *os.File // git-tdd's end of the pair
	done chan struct{}
}

// newSupervisor makes the socket pair, whose other end goes to the helper,
// and starts answering as soon as the helper hands over its notifications.
func newSupervisor() (*Supervisor, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	s := &Supervisor{sock: os.NewFile(uintptr(fds[0]), "supervisor"), done: make(chan struct{})}
	go s.serve()
	return s, os.NewFile(uintptr(fds[1]), "supervised"), nil
}

// serve receives the notifications' file, and answers each notification
// until no program is left to send one (or the helper handed none over: it
// refused, or exited).
func (s *Supervisor) serve() {
	defer close(s.done)
	defer s.sock.Close()
	listener, err := receiveFD(int(s.sock.Fd()))
	if err != nil {
		return
	}
	defer unix.Close(listener)
	self, group := os.Getpid(), syscall.Getpgrp()
	for {
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: every program the filter confined has exited
		}
		var req seccompNotif
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // interrupted, or the caller died meanwhile
			}
			return
		}
		resp := seccompNotifResp{ID: req.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
		if errno := signalAnswer(req.Data, self, group, ownThread, exists); errno != 0 {
			resp.Error, resp.Flags = -int32(errno), 0
		}
		ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp)) // ENOENT: the caller died meanwhile
	}
}

// signalAnswer is the error a supervised call gets, 0 to let the kernel
// carry it out: EPERM where refusedSignal refuses it, and ESRCH for a
// process or thread that is not there (exists), which the kernel would say
// too, and which could otherwise be one of git-tdd's threads by the time the
// kernel looked, had it been made meanwhile.
func signalAnswer(d seccompData, self, group int, own func(tid, self int) bool, exists func(pid int) bool) unix.Errno {
	if refusedSignal(d, self, group, own) {
		return unix.EPERM
	}
	if t := signalTarget(d); t > 0 && !exists(t) {
		return unix.ESRCH
	}
	return 0
}

// signalTarget is the process or thread a supervised call names by number,
// 0 for none (a group, every process, or another fcntl command).
func signalTarget(d seccompData) int {
	t := int32(d.Args[0])
	if d.Nr == unix.SYS_FCNTL {
		if int32(d.Args[1]) != unix.F_SETOWN {
			return 0
		}
		t = int32(d.Args[2])
	}
	return int(max(t, 0))
}

// exists reports whether a process or thread of that id is there.
func exists(pid int) bool {
	_, err := os.Lstat("/proc/" + strconv.Itoa(pid))
	return !errors.Is(err, fs.ErrNotExist)
}

// refusedSignal decides a supervised call: kill and rt_sigqueueinfo aimed at
// one of git-tdd's threads (self's, as own tells them), kill aimed at its
// process group or at every process, and fcntl(F_SETOWN) making one of them
// the owner of a file's SIGIO are refused; the rest go through.
func refusedSignal(d seccompData, self, group int, own func(tid, self int) bool) bool {
	target := int32(d.Args[0])
	switch d.Nr {
	case unix.SYS_KILL, unix.SYS_RT_SIGQUEUEINFO:
		if d.Nr == unix.SYS_KILL && (target == -1 || target < -1 && int(-target) == group) {
			return true
		}
	case unix.SYS_FCNTL:
		if int32(d.Args[1]) != unix.F_SETOWN {
			return false
		}
		target = int32(d.Args[2])
		if target < 0 && int(-target) == group {
			return true
		}
	default:
		return false
	}
	return target > 0 && own(int(target), self)
}

// ownThread reports whether tid is one of this process's threads; when in
// doubt, it is.
func ownThread(tid, self int) bool {
	if tid == self {
		return true
	}
	_, err := os.Lstat("/proc/self/task/" + strconv.Itoa(tid))
	return !errors.Is(err, fs.ErrNotExist)
}

// Wait waits until the supervisor has nothing left to answer for.
func (s *Supervisor) Wait() { <-s.done }

// seccompData, seccompNotif and seccompNotifResp are the kernel's
// seccomp_data, seccomp_notif and seccomp_notif_resp.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// receiveFD reads the one file descriptor the helper sends.
func receiveFD(sock int) (int, error) {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	for {
		_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, err
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			return -1, errors.New("sandbox: the helper sent no supervision")
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return -1, errors.New("sandbox: the helper sent no supervision")
		}
		return fds[0], nil
	}
}

// superviseProgram sends kill, rt_sigqueueinfo and fcntl(F_SETOWN) of this
// architecture to the supervisor; a call of another architecture is left to
// the other programs (which kill it).
func superviseProgram(archID uint32) ([]bpf.RawInstruction, error) {
	notify := bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF}
	allow := bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	return bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: archID, SkipTrue: 1},
		allow,
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_KILL, SkipFalse: 1},
		notify,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_RT_SIGQUEUEINFO, SkipFalse: 1},
		notify,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_FCNTL, SkipTrue: 1},
		allow,
		bpf.LoadAbsolute{Off: 16 + 8*1, Size: 4}, // the lower half of args[1]
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.F_SETOWN, SkipTrue: 1},
		allow,
		notify,
	})
}

// handOver loads the supervising program, whose notifications go to the
// file the kernel makes for them, sends that file to git-tdd over sock, and
// keeps no copy of either.
func handOver(sock int, archID uint32) error {
	defer unix.Close(sock)
	prog, err := superviseProgram(archID)
	if err != nil {
		return err
	}
	listener, err := loadFilterFlags(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	if err != nil {
		return err
	}
	defer unix.Close(listener)
	return unix.Sendmsg(sock, []byte{0}, unix.UnixRights(listener), nil, 0)
}
