package heldtty

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestRegisterHolder(t *testing.T) {
	common := t.TempDir()
	release, err := Register(common, []uint64{34816, 1025})
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := Holder(common, 1025); pid != os.Getpid() || err != nil {
		t.Fatalf("Holder = %d, %v; want this process", pid, err)
	}
	if pid, _ := Holder(common, 7); pid != 0 {
		t.Errorf("a terminal nobody registered is held by %d", pid)
	}
	release()
	if pid, _ := Holder(common, 1025); pid != 0 {
		t.Errorf("released, still held by %d", pid)
	}
}

func TestStaleAndMalformed(t *testing.T) {
	common := t.TempDir()
	dir := Dir(common)
	os.MkdirAll(dir, 0o755)
	me := os.Getpid()
	for name, data := range map[string]string{
		"999999999":                "pid 999999999\nstart 1\ntty 5\n", // gone
		"1":                        "pid 1\nstart 0\ntty 5\n",         // init, another start
		"2":                        "pid 3\nstart \ntty 5\n",          // a name that is not its pid
		"x":                        "garbage",
		itoa(me) + ".tmp":          "pid " + itoa(me) + "\nstart " + startTime(me) + "\ntty 5\n",
		itoa(me) + "-with-spaces ": "pid " + itoa(me) + "\ntty 5\n",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	if pid, err := Holder(common, 5); pid != 0 || err != nil {
		t.Errorf("Holder = %d, %v; a stale or malformed record holds nothing", pid, err)
	}
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"pid 12\nstart 99\ntty 1\ntty 2\n", true},
		{"pid 0\n", false},
		{"pid -3\n", false},
		{"pid 12\ncolor red\n", false},
		{"pid 12\ntty x\n", false},
		{"", false},
	} {
		if _, ok := parse(tt.in); ok != tt.ok {
			t.Errorf("parse(%q) ok = %v", tt.in, ok)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
