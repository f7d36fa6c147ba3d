package cmdline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type testRed struct {
	Force bool   `short:"f" help:"Force it."`
	Issue string `arg:"" optional:"" help:"The issue."`
}

func (c *testRed) Run(env *Env) error {
	_, err := env.Stdout.Write([]byte("red " + c.Issue + " force=" + map[bool]string{true: "yes", false: "no"}[c.Force] + " C=" + env.Directory + "\n"))
	return err
}

type testIssue struct {
	New struct {
		Brief string `arg:""`
	} `cmd:"" help:"Draft one."`
}

type testCLI struct {
	Globals `embed:""`

	Red        testRed       `cmd:"" help:"Prove red."`
	Issue      testIssue     `cmd:"" help:"Draft an issue."`
	IssueList  testRed       `cmd:"" help:"Two words."`
	Issues     testRed       `cmd:"" name:"__issues" hidden:"" help:"For completion."`
	Completion CompletionCmd `cmd:"" help:"Completion."`
}

func testApp() App {
	var cli testCLI
	return App{Prog: "git-x", Usage: "git x", CLI: &cli, Globals: &cli.Globals}
}

// The model is built for the named command alone, unless the whole tree is
// needed: no command, a mistyped one, help, completion.
func TestNamed(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // the one command of the pruned tree, "" for the whole
	}{
		{[]string{"red"}, "red"},
		{[]string{"red", "-f", "12"}, "red"},
		{[]string{"-C", "dir", "--color", "never", "--no-pager", "red"}, "red"},
		{[]string{"--color=never", "issue", "new", "b.md"}, "issue"},
		{[]string{"__issues"}, "__issues"},
		{[]string{"red", "--", "-h"}, "red"},
		{nil, ""},
		{[]string{"-C", "dir"}, ""},
		{[]string{"rde"}, ""},
		{[]string{"issuelist"}, ""},
		{[]string{"issue-list"}, ""},
		{[]string{"-h"}, ""},
		{[]string{"red", "-h"}, ""},
		{[]string{"red", "--help"}, ""},
		{[]string{"red", "-fh"}, ""},
		{[]string{"completion", "bash"}, ""},
	} {
		app, pruned := testApp().named(tt.args)
		if pruned != (tt.want != "") {
			t.Errorf("%q: pruned %v, want %v", tt.args, pruned, !pruned)
			continue
		}
		p, err := app.Parser()
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		var names []string
		for _, n := range p.Model.Children {
			names = append(names, n.Name)
		}
		if pruned && strings.Join(names, " ") != tt.want || !pruned && len(names) != 5 {
			t.Errorf("%q: commands %q, want %q", tt.args, names, tt.want)
		}
	}
}

// A command runs the same from the pruned tree: its flags, its arguments and
// the globals reach it; a usage error and its hint are the whole tree's.
func TestRunNamed(t *testing.T) {
	for _, tt := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"-C", "/", "red", "-f", "12"}, 0, "red 12 force=yes C=/\n", ""},
		{[]string{"--directory=/", "red"}, 0, "red  force=no C=/\n", ""},
		{[]string{"red", "--bogus"}, 2, "", "git-x: error: unknown flag --bogus\nhint: run 'git x red -h' for usage\n"},
		{[]string{"red", "1", "2"}, 2, "", "git-x: error: unexpected argument 2\nhint: run 'git x red -h' for usage\n"},
		{[]string{"rde"}, 2, "", "git-x: error: unexpected argument rde, did you mean \"red\"?\nhint: run 'git x -h' for usage\n"},
		{[]string{"issue"}, 2, "", "git-x: error: expected \"new\"\nhint: run 'git x issue -h' for usage\n"},
		{[]string{"red", "--version"}, 0, "git x", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(testApp(), tt.args, nil, &stdout, &stderr)
		if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) || stderr.String() != tt.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}

// Each command's node is the same in the pruned tree as in the whole one.
func TestNamedSameNode(t *testing.T) {
	whole, err := testApp().Parser()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range whole.Model.Children {
		if n.Name == "completion" || n.Name == "issue-list" {
			continue
		}
		app, pruned := testApp().named([]string{n.Name})
		if !pruned {
			t.Errorf("%s: not pruned", n.Name)
			continue
		}
		one, err := app.Parser()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := describe(one.Model.Children[0]), describe(n); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", n.Name, got, want)
		}
	}
}

func describe(n *kong.Node) string {
	var b strings.Builder
	b.WriteString(n.Path() + " " + n.Summary() + " " + n.Help + "\n")
	for _, f := range n.AllFlags(false) {
		for _, fl := range f {
			b.WriteString("  " + fl.Summary() + " " + fl.Help + "\n")
		}
	}
	for _, c := range n.Children {
		b.WriteString(describe(c))
	}
	return b.String()
}
