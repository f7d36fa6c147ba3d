package runner

import (
	"os"
	"os/exec"
	"reflect"
	"sort"
	"testing"
	"time"
)

// The children files and the scan of every process agree on what runs below
// this one (a process and its child).
func TestDescendantsAgree(t *testing.T) {
	c := exec.Command("sh", "-c", "sleep 5 & sleep 5")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	var fast, scan []int
	// wait for the shell's two children, then compare the two ways
	for i := 0; i < 100 && len(scan) < 3; i++ {
		time.Sleep(10 * time.Millisecond)
		scan = scanDescendants(os.Getpid())
	}
	for i := 0; i < 20; i++ {
		fast, _ = childrenTree(os.Getpid())
		scan = scanDescendants(os.Getpid())
		sort.Ints(fast)
		sort.Ints(scan)
		if reflect.DeepEqual(fast, scan) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	sort.Ints(fast)
	sort.Ints(scan)
	if len(scan) < 3 || !reflect.DeepEqual(fast, scan) {
		t.Errorf("children files %v, scan %v", fast, scan)
	}
}
