package issueflow

import (
	"slices"
	"strings"
	"testing"
)

func TestEditorArgv(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "ED": "vim"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"vi", []string{"vi"}, ""},
		{"code -w", []string{"code", "-w"}, ""},
		{`"/opt/my editor/ed" --wait`, []string{"/opt/my editor/ed", "--wait"}, ""},
		{"vim +'set tw=72'", []string{"vim", "+set tw=72"}, ""},
		{"~/bin/ed", []string{"/home/u/bin/ed"}, ""},
		{"$ED -f", []string{"vim", "-f"}, ""},
		{"emacsclient -a ''", []string{"emacsclient", "-a", ""}, ""},
		{"ed $(touch pwned)", nil, "needs a shell"},
		{"ed `touch pwned`", nil, "needs a shell"},
		{"a | b", nil, "needs a shell"},
		{"a; b", nil, "needs a shell"},
		{"   ", nil, "no editor"},
	} {
		got, err := EditorArgv(tc.in, getenv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("EditorArgv(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("EditorArgv(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
