package pathglob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"tests/**", "tests/test_a.py", true},
		{"tests/**", "tests/unit/deep/x.py", true},
		{"tests/**", "src/tests/x.py", false},
		{"**/test_*.py", "test_a.py", true},
		{"**/test_*.py", "pkg/sub/test_a.py", true},
		{"**/test_*.py", "pkg/test_a.pyc", false},
		{"**/*_test.py", "pkg/a_test.py", true},
		{"**/*_test.go", "internal/x/y_test.go", true},
		{"**/*_test.go", "internal/x/y.go", false},
		{"src/*.py", "src/a/b.py", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
	if !Any([]string{"x", "**/test_*.py"}, "a/test_b.py") || Any(nil, "a") {
		t.Error("Any")
	}
}
