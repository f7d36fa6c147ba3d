package gitx

import (
	"strings"
	"testing"
)

func TestParseReflog(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	z := strings.Repeat("0", 40)
	s256 := strings.Repeat("d", 64)
	tests := []struct {
		name, log string
		want      []string
	}{
		{"empty", "", nil},
		{"one worktree add", z + " " + a + " T <t@e> 1795749487 +0000\n", []string{a}},
		{"newest first, each once", z + " " + a + " T <t@e> 1 +0000\n" +
			a + " " + b + " T <t@e> 2 +0000\tcommit: b\n" +
			b + " " + c + " T <t@e> 3 +0000\tcommit: c\n" +
			c + " " + a + " T <t@e> 4 +0000\treset: moving to HEAD~2\n",
			[]string{a, c, b}},
		{"an expired start is still named", b + " " + c + " T <t@e> 3 +0000\tcommit: c\n", []string{c, b}},
		{"sha256", z + " " + s256 + " T <t@e> 1 +0000\n", []string{s256}},
		{"garbage skipped", "not a line\n" + a + " short T <t@e> 1 +0000\n" + strings.ToUpper(a) + " " + b + " T\n" + z + " " + c + " T <t@e> 1 +0000", []string{c}},
	}
	for _, tt := range tests {
		got := ParseReflog([]byte(tt.log))
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
