package diffgate

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// git diffgate's commands parse with their own model as in the whole tree
// (see internal/tdd's TestNarrowParsesAsTheWholeTree).
func TestNarrowParsesAsTheWholeTree(t *testing.T) {
	for _, args := range [][]string{
		{"review"}, {"review", "--auto", "-m", "a note"}, {"review", "--branch", "main", "--to", "HEAD~1"},
		{"report", "--color", "always"}, {"install", "--strict"}, {"uninstall"}, {"status", "--json"},
		{"verify", "origin/main..HEAD", "--json"},
	} {
		full := app()
		parser, err := full.Parser(kong.Writers(io.Discard, io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		want, err := parser.Parse(args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		narrow := app()
		got, ok := narrow.ParseNarrow(args, kong.Writers(io.Discard, io.Discard))
		if !ok {
			t.Fatalf("%q: not parsed narrow", args)
		}
		g, w := field(narrow.CLI, args[0]), field(full.CLI, args[0])
		if got.Command() != want.Command() || !reflect.DeepEqual(g, w) || !reflect.DeepEqual(*narrow.Globals, *full.Globals) {
			t.Errorf("%q: narrow %q %+v\nwhole %q %+v", args, got.Command(), g, want.Command(), w)
		}
	}
}

func field(cli any, name string) any {
	v := reflect.ValueOf(cli).Elem()
	for i := range v.NumField() {
		if strings.ToLower(v.Type().Field(i).Name) == name {
			return v.Field(i).Interface()
		}
	}
	return nil
}
