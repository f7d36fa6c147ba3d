package cmdline

import (
	"reflect"
	"strings"
)

// named is app with a command tree of the globals and the one command args
// name: kong builds its model by reflection over every command's flags on
// each start, and the commands not run need none of it. pruned is false, and
// app the whole tree, when args name no command (the default command, a
// mistyped one), may ask for help (whose text lists the other commands), or
// name the completion command, which describes the tree it is part of.
func (app App) named(args []string) (_ App, pruned bool) {
	word := commandWord(args)
	if word == "" || mayAskHelp(args) {
		return app, false
	}
	t := reflect.TypeOf(app.CLI).Elem()
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if _, cmd := f.Tag.Lookup("cmd"); f.Anonymous || cmd && cmdName(f) == word {
			fields = append(fields, f)
		}
	}
	if len(fields) != 2 || fields[0].Type != reflect.TypeFor[Globals]() || fields[1].Type == reflect.TypeFor[CompletionCmd]() {
		return app, false
	}
	cli := reflect.New(reflect.StructOf(fields))
	app.CLI = cli.Interface()
	app.Globals = cli.Elem().Field(0).Addr().Interface().(*Globals)
	return app, true
}

// cmdName is the name kong gives a command field: its name tag, or its Go
// name in lower case when that is one word. A field of more (kong names
// IssueList "issue-list") has none here, and gets the whole tree.
func cmdName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	if rest := f.Name[1:]; strings.ToLower(rest) != rest {
		return ""
	}
	return strings.ToLower(f.Name)
}

// mayAskHelp reports whether an argument before "--" may be -h or --help,
// alone or in a cluster of short flags (-xh).
func mayAskHelp(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--help"):
			return true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "h"):
			return true
		}
	}
	return false
}
