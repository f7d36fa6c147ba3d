package pytestconfig

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsConfig(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		want       bool
	}{
		{"pytest.ini", "", true},
		{"pytest.toml", "", true},
		{".pytest.ini", "[other]\n", false},
		{".pytest.ini", "[pytest]\n", true},
		{"tox.ini", "[tox]\nenvlist = py\n", false},
		{"tox.ini", "[tox]\n[pytest]\naddopts = -q\n", true},
		{"setup.cfg", "[metadata]\n", false},
		{"setup.cfg", "[tool:pytest]\n", true},
		{"pyproject.toml", "[project]\nname = \"x\"\n", false},
		{"pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q\"\n", true},
		{"pyproject.toml", "[tool.black]\n", false},
		{"pyproject.toml", "not [toml", true}, // pytest refuses to run with it: compared whole
		{"README.md", "[pytest]\n", false},
	} {
		if got := IsConfig(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("IsConfig(%s, %q) = %v, want %v", tt.name, tt.data, got, tt.want)
		}
	}
}

func TestSection(t *testing.T) {
	a, _ := Section("pyproject.toml", []byte("[tool.pytest.ini_options]\naddopts = \"-q\"\ntestpaths = [\"tests\"]\n"))
	b, _ := Section("pyproject.toml", []byte("[project]\nname = \"x\"\n[tool.pytest.ini_options]\ntestpaths = [ \"tests\" ]  # where\naddopts = '-q'\n"))
	if a != b {
		t.Errorf("the same settings written differently compare unequal:\n%q\n%q", a, b)
	}
	c, _ := Section("setup.cfg", []byte("[tool:pytest]\naddopts = -q\n; note\n\n[flake8]\nmax = 1\n"))
	if c != "addopts = -q\n" {
		t.Errorf("setup.cfg section: %q", c)
	}
}

// TestFile: the configuration pytest would choose, looked for from each
// argument's directory up to the run directory and never above it.
func TestFile(t *testing.T) {
	outer := t.TempDir()
	dir := filepath.Join(outer, "wt")
	write := func(name, content string) {
		p := filepath.Join(outer, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("pytest.ini", "[pytest]\n")
	write("wt/tests/unit/test_a.py", "")
	if got := File(dir, nil); got != "" {
		t.Errorf("found %s above the run directory", got)
	}
	write("wt/setup.cfg", "[metadata]\n")
	write("wt/pyproject.toml", "[tool.pytest.ini_options]\n")
	if got := File(dir, nil); got != filepath.Join(dir, "pyproject.toml") {
		t.Errorf("root: %s", got)
	}
	write("wt/tests/tox.ini", "[pytest]\n")
	if got := File(dir, []string{"-v", "tests/unit/test_a.py::test_x"}); got != filepath.Join(dir, "tests", "tox.ini") {
		t.Errorf("from an argument's directory: %s", got)
	}
	write("wt/pytest.ini", "")
	if got := File(dir, nil); got != filepath.Join(dir, "pytest.ini") {
		t.Errorf("pytest.ini before pyproject.toml: %s", got)
	}
	if got := File(dir, []string{"../outside"}); got != filepath.Join(dir, "pytest.ini") {
		t.Errorf("an argument outside: %s", got)
	}
}
