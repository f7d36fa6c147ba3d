package confine

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// A file git-tdd inherited open is not passed on to what it starts; its
// standard files are.
func TestNoInheritance(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// as a shell hands it down: not close-on-exec
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	if err := NoInheritance(); err != nil {
		t.Fatal(err)
	}
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the inherited file is still passed on: flags %#x %v", flags, err)
	}
	for fd := 0; fd <= 2; fd++ {
		if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
			t.Errorf("standard file %d is not passed on", fd)
		}
	}
}
