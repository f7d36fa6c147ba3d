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
	for i := 0; i < 50; i++ {
		fast, _ = childrenTree(os.Getpid())
		scan = scanDescendants(os.Getpid())
		if len(scan) >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	sort.Ints(fast)
	sort.Ints(scan)
	if len(scan) < 3 || !reflect.DeepEqual(fast, scan) {
		t.Errorf("children files %v, scan %v", fast, scan)
	}
}
