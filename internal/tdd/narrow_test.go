package tdd

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// A command line that starts with a command is parsed with that command's
// model alone (kong builds the whole tree's in 1.4 ms on every start): it
// must parse exactly as the whole tree parses it, and anything the narrow
// model does not take (help, an error, another command first) goes to the
// whole tree.
func TestNarrowParsesAsTheWholeTree(t *testing.T) {
	for _, args := range [][]string{
		{"red"}, {"red", "12", "--json"}, {"red", "--no-sandbox", "PROJ-3"}, {"red", "--color", "never", "7"},
		{"green", "--no-pager", "-C", "/tmp", "4"}, {"green", "--json"},
		{"status", "--json"}, {"status", "12"}, {"list", "--json"},
		{"start", "87", "--base", "main", "--lld", "d e.md", "--context", "a.py", "b.py", "--again"},
		{"merge", "3", "--auto"}, {"abort", "3"}, {"lint"}, {"verify", "origin/main..HEAD"},
		{"run", "5", "--auto", "--json"},
		{"agent", "3", "--write", "/tmp", "--port", "443", "--", "claude", "--help", "-x"},
		{"write", "a b.py", "--strategy", "insert", "--line", "3", "--auto"},
		{"patch", "x.py", "--format", "aider", "--dry-run"},
		{"context", "a.py", "b.py"}, {"__issues"},
	} {
		full := app()
		parser, err := full.Parser(kong.Writers(io.Discard, io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		want, err := parser.Parse(args)
		if err != nil {
			t.Fatalf("%q: the whole tree refuses it: %v", args, err)
		}
		narrow := app()
		got, ok := narrow.ParseNarrow(args, kong.Writers(io.Discard, io.Discard))
		if !ok {
			t.Errorf("%q: not parsed narrow", args)
			continue
		}
		if got.Command() != want.Command() {
			t.Errorf("%q: command %q, the whole tree %q", args, got.Command(), want.Command())
		}
		// the command's flags and arguments, and the global ones (the whole
		// tree also sets the other commands' defaults, which nothing reads)
		g, w := commandField(narrow.CLI, args[0]), commandField(full.CLI, args[0])
		if !reflect.DeepEqual(g, w) || !reflect.DeepEqual(*narrow.Globals, *full.Globals) {
			t.Errorf("%q: narrow %+v %+v\nwhole %+v %+v", args, g, *narrow.Globals, w, *full.Globals)
		}
	}
	for _, args := range [][]string{
		{}, {"-C", "/tmp", "red"}, {"red", "-h"}, {"green", "--help"}, {"red", "--no-such-flag"}, {"status", "1", "2"},
		{"completion", "bash"}, {"frobnicate"}, {"write"},
	} {
		if _, ok := app().ParseNarrow(args, kong.Writers(io.Discard, io.Discard)); ok {
			t.Errorf("%q: parsed narrow", args)
		}
	}
}

// commandField is the value of the command name in cli.
func commandField(cli any, name string) any {
	v := reflect.ValueOf(cli).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if n := f.Tag.Get("name"); n == name || n == "" && strings.ToLower(f.Name) == name {
			return v.Field(i).Interface()
		}
	}
	return nil
}
