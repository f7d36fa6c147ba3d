package completion

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// a command tree with every kind of value
type testCLI struct {
	Color string `enum:"auto,always,never" default:"auto"`
	Dir   string `short:"C" placeholder:"DIR"`
	Start struct {
		Issue   string   `arg:"" complete:"none"`
		Base    string   `placeholder:"REV"`
		Context []string `placeholder:"PATH..."`
		LLD     string   `name:"lld" placeholder:"FILE"`
	} `cmd:""`
	Status struct {
		Issue string `arg:"" optional:""`
		JSON  bool   `name:"json"`
	} `cmd:""`
	Verify struct {
		Range string `arg:"" optional:"" placeholder:"RANGE"`
	} `cmd:""`
	Issue struct {
		New struct {
			Brief string `arg:"" placeholder:"BRIEF.md"`
		} `cmd:""`
		List struct{} `cmd:""`
	} `cmd:""`
	Context struct {
		Paths []string `arg:"" optional:""`
	} `cmd:""`
	Completion struct {
		Shell string `arg:"" enum:"bash,zsh,fish"`
	} `cmd:""`
	Secret struct{} `cmd:"" hidden:""`
}

func testTree(t *testing.T) *kong.Application {
	t.Helper()
	var cli testCLI
	k, err := kong.New(&cli, kong.Name("fake tdd"))
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

func TestTree(t *testing.T) {
	root := Tree(testTree(t))
	if got := strings.Join(root.Names(), " "); got != "start status verify issue context completion" {
		t.Errorf("commands %q", got)
	}
	kinds := map[string]string{}
	root.Walk(func(c *Command) {
		for _, f := range c.Flags {
			kinds[c.Path+" --"+f.Long] = f.Kind
		}
		for _, a := range c.Args {
			kinds[c.Path+" <"+a.Name+">"] = a.Kind
		}
	})
	for k, want := range map[string]string{
		" --color": Enum, " --dir": Dir, "start --base": Ref, "start --context": Files, "start --lld": File,
		"start <issue>": None, "status <issue>": Issue, "status --json": None, "verify <range>": Range,
		"issue new <brief>": File, "context <paths>": Files, "completion <shell>": Enum, "start --color": Enum,
	} {
		if got, ok := kinds[k]; !ok || got != want {
			t.Errorf("%s: %q (present %v), want %q", k, got, ok, want)
		}
	}
}

// The bash script completes as bash runs it: sourced, then the completion
// function called with COMP_WORDS as bash sets them.
func TestBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var script bytes.Buffer
	if err := Bash(&script, Tree(testTree(t)), Spec{Prog: "fake-tdd", Git: "tdd", Issues: "__issues"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"a.py", "b.py", "notes.md"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	scriptFile := filepath.Join(t.TempDir(), "script.bash")
	os.WriteFile(scriptFile, script.Bytes(), 0o644)
	tests := []struct{ line, want string }{
		{"fake-tdd st", "start status"},
		{"fake-tdd ", "start status verify issue context completion"},
		{"fake-tdd --col", "--color"},
		{"fake-tdd --color ", "auto always never"},
		{"fake-tdd --color=al", "--color=always"},
		{"fake-tdd -C ", "src"},
		{"fake-tdd status ", "87 88"},
		{"fake-tdd status 8", "87 88"},
		{"fake-tdd status --j", "--json"},
		{"fake-tdd issue ", "list new"},
		{"fake-tdd issue new n", "notes.md"},
		{"fake-tdd start 9 --lld n", "notes.md"},
		{"fake-tdd start 9 --context a.py ", "a.py b.py notes.md src"},
		{"fake-tdd start 9 --context a.py b", "b.py"},
		{"fake-tdd start 9 --context a.py --l", "--lld"},
		{"fake-tdd start ", ""},
		{"fake-tdd context a.py n", "notes.md"},
		{"fake-tdd completion ", "bash zsh fish"},
		{"fake-tdd completion z", "zsh"},
		{"fake-tdd secr", ""},
		{"git tdd st", "start status"},
		{"git -C . tdd issue n", "new"},
	}
	for _, tt := range tests {
		words := strings.Split(tt.line, " ")
		fn := "__git_tdd_main"
		if words[0] == "git" {
			fn = "_git_tdd"
		}
		prog := `fake-tdd() { printf '87\n88\n'; }
source ` + scriptFile + `
COMP_WORDS=(` + quoteWords(words) + `)
COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
` + fn + `
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tt.line, err, out)
			continue
		}
		if got, want := strings.TrimSpace(string(out)), sorted(tt.want); got != want {
			t.Errorf("%q: got %q, want %q", tt.line, got, want)
		}
	}
	// complete -p: the executable is registered
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", "source "+scriptFile+"; complete -p fake-tdd; declare -F _git_tdd").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "complete -F __git_tdd_main fake-tdd") || !strings.Contains(string(out), "_git_tdd") {
		t.Errorf("%s %v", out, err)
	}
}

func quoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, " ")
}

func sorted(s string) string {
	f := strings.Fields(s)
	sort.Strings(f)
	return strings.Join(f, " ")
}

// The zsh script, sourced in zsh with compadd, _describe, _files and compset
// standing in for the completion system: what it offers for each word (zsh
// itself then keeps those that match what is typed).
func TestZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh")
	}
	var script bytes.Buffer
	if err := Zsh(&script, Tree(testTree(t)), Spec{Prog: "fake-tdd", Git: "tdd", Issues: "__issues"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "_fake-tdd")
	os.WriteFile(file, script.Bytes(), 0o644)
	if out, err := exec.Command(zsh, "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	tests := []struct{ line, want string }{
		{"fake-tdd ", "completion context issue start status verify"},
		{"fake-tdd --color ", "always auto never"},
		{"fake-tdd --color=al", "always auto never"},
		{"fake-tdd -C ", "FILES-/"},
		{"fake-tdd status ", "87 88"},
		{"fake-tdd status -", "--color --dir --help --json -C -h"},
		{"fake-tdd issue ", "list new"},
		{"fake-tdd issue new ", "FILES"},
		{"fake-tdd start 9 --context a.py ", "FILES"},
		{"fake-tdd start 9 --context a.py b.py --lld ", "FILES"},
		{"fake-tdd start ", ""},
		{"fake-tdd completion ", "bash fish zsh"},
		{"tdd status ", "87 88"}, // as zsh's _git calls it: words[1] is the git command
	}
	for _, tt := range tests {
		words := strings.Split(tt.line, " ")
		prog := `fake-tdd() { print 87; print 88 }
_describe() { local arr=${@[-1]}; print -rl -- ${(P)arr%%:*} }
compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }
_files() { print -r -- "FILES$*" }
compset() { return 0 }
source ` + file + `
words=(` + quoteWords(words) + `)
CURRENT=` + strconv.Itoa(len(words)) + `
_fake-tdd | sort | tr '\n' ' '`
		out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tt.line, err, out)
			continue
		}
		if got := strings.TrimSpace(string(out)); got != sorted(tt.want) {
			t.Errorf("%q: got %q, want %q", tt.line, got, sorted(tt.want))
		}
	}
}

// The fish script, sourced in fish, answers complete -C as fish completes;
// git's own fish completion hands `git tdd …` to it.
func TestFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("no fish")
	}
	var script bytes.Buffer
	if err := Fish(&script, Tree(testTree(t)), Spec{Prog: "fake-tdd", Git: "tdd", Issues: "__issues"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "fake-tdd.fish")
	os.WriteFile(file, script.Bytes(), 0o644)
	if out, err := exec.Command(fish, "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("fish -n: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for _, f := range []string{"a.py", "b.py", "notes.md"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	tests := []struct{ line, want string }{
		{"fake-tdd st", "start status"},
		{"fake-tdd --color ", "always auto never"},
		{"fake-tdd status ", "87 88"},
		{"fake-tdd status --j", "--json"},
		{"fake-tdd issue ", "list new"},
		{"fake-tdd issue new n", "notes.md"},
		{"fake-tdd start 9 --context a.py ", "a.py b.py notes.md"},
		{"fake-tdd start ", ""},
		{"fake-tdd completion ", "bash fish zsh"},
		{"git tdd st", "start status"},
		{"git tdd status ", "87 88"},
	}
	for _, tt := range tests {
		prog := `function fake-tdd; printf '87\n88\n'; end
source ` + file + `
complete -C '` + tt.line + `' | string replace -r '\t.*' '' | sort | string join ' '; true`
		// a configuration of its own, but fish's: git's completion is its
		cmd := exec.Command(fish, "-c", prog)
		home := t.TempDir()
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tt.line, err, out)
			continue
		}
		if got := strings.TrimSpace(string(out)); got != sorted(tt.want) {
			t.Errorf("%q: got %q, want %q", tt.line, got, sorted(tt.want))
		}
	}
}
