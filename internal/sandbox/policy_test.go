package sandbox

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy Policy
		want   string // "" valid
	}{
		{"the default shape", Policy{Write: []string{"/w", "/tmp/run"}, Read: []string{"/r/.git"}, Deny: []string{"/home/u/.ssh"}}, ""},
		{"a deny equal to a writable path", Policy{Write: []string{"/home/u/.ssh"}, Deny: []string{"/home/u/.ssh"}}, "would be writable and /home/u/.ssh unreadable"},
		{"a writable path holding a deny", Policy{Write: []string{"/home/u"}, Deny: []string{"/home/u/.ssh"}}, "one holds the other"},
		{"a writable path in a deny", Policy{Write: []string{"/home/u/.ssh/x"}, Deny: []string{"/home/u/.ssh"}}, "one holds the other"},
		{"a sibling is no overlap", Policy{Write: []string{"/home/u/.sshx"}, Deny: []string{"/home/u/.ssh"}}, ""},
		{"a read path denied", Policy{Read: []string{"/src/r/.git"}, Deny: []string{"/src"}}, "must stay readable"},
		{"denying everything", Policy{Deny: []string{"/"}}, "leaves nothing"},
		{"a relative path", Policy{Write: []string{"w"}}, "not a clean absolute path"},
		{"an unclean path", Policy{Deny: []string{"/home/u/../v"}}, "not a clean absolute path"},
		{"ports with the network off", Policy{Ports: []uint16{443}}, "network off"},
		{"port 0", Policy{Network: true, Ports: []uint16{0}}, "not a port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The helper reads nothing but a whole, valid message from git-tdd.
func TestDecodeMessage(t *testing.T) {
	good, err := message{Policy: Policy{Write: []string{"/w"}}, Path: "sh", Args: []string{"sh"}, Env: []string{"PATH=/bin"}}.encode()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := decodeMessage(strings.NewReader(string(good))); err != nil || m.Path != "sh" || m.Policy.Write[0] != "/w" {
		t.Fatalf("decode(good) = %+v, %v", m, err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "is empty"},
		{"not JSON", "write=/", "not valid"},
		{"no magic", `{"policy":{},"path":"sh","args":["sh"]}`, "does not hold a git-tdd policy"},
		{"another magic", `{"magic":"git-tdd sandbox policy 0","policy":{},"path":"sh","args":["sh"]}`, "does not hold"},
		{"an unknown field", `{"magic":"git-tdd sandbox policy 1","policy":{"unconfined":true},"path":"sh","args":["sh"]}`, "unknown field"},
		{"trailing data", string(good) + `{}`, "followed by more data"},
		{"no program", `{"magic":"git-tdd sandbox policy 1","policy":{},"path":"","args":[]}`, "names no program"},
		{"an invalid policy", `{"magic":"git-tdd sandbox policy 1","policy":{"write":["/h"],"deny":["/h"]},"path":"sh","args":["sh"]}`, "one holds the other"},
		{"too large", `{"magic":"` + strings.Repeat("x", maxMessage) + `"}`, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeMessage(strings.NewReader(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
