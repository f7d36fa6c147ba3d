// Package completion writes bash, zsh and fish completion scripts for a
// command tree, generated from its kong model, with git's hooks so that
// `git tdd <Tab>` completes as well as `git-tdd <Tab>`.
package completion

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/alecthomas/kong"
)

// The kinds of values a flag or an argument takes, and how each completes.
const (
	None  = ""      // a switch, or a word nothing can guess
	File  = "file"  // a file name
	Files = "files" // file names, several in a row (cmdline.Paths)
	Dir   = "dir"   // a directory
	Issue = "issue" // an active git tdd workflow's issue
	Ref   = "ref"   // a branch, tag or remote-tracking branch
	Range = "range" // A..B of refs
	Enum  = "enum"  // one of Values
)

// Spec names the command the script completes.
type Spec struct {
	Prog   string // the executable: git-tdd
	Git    string // its name under git: tdd, for `git tdd`
	Issues string // the hidden command that prints the active issues, one a line; "" for none
}

// Command is one command of the tree, as completion sees it.
type Command struct {
	Path  string // "issue new"; "" for the root
	Name  string
	Help  string
	Cmds  []*Command
	Flags []Flag // its own and its parents'
	Args  []Arg
}

// Flag is a flag and what its value is.
type Flag struct {
	Long   string
	Short  rune
	Help   string
	Kind   string
	Values []string
}

// Arg is a positional argument and what it is.
type Arg struct {
	Name   string
	Kind   string
	Values []string
	Many   bool
}

// Tree reads the command tree from a kong application: the commands that are
// not hidden, their flags (the parents' too, as kong accepts them anywhere)
// and their arguments. A `complete:"KIND"` tag says what a value is; without
// one it is guessed from the type, the enum and the placeholder.
func Tree(app *kong.Application) *Command {
	return build(app.Node, "", nil)
}

func build(n *kong.Node, path string, inherited []Flag) *Command {
	c := &Command{Path: path, Name: n.Name, Help: n.Help}
	flags := append([]Flag{}, inherited...)
	for _, f := range n.Flags {
		if f.Hidden {
			continue
		}
		flags = append(flags, flagOf(f))
	}
	c.Flags = flags
	for _, p := range n.Positional {
		c.Args = append(c.Args, argOf(p))
	}
	for _, child := range n.Children {
		if child.Type != kong.CommandNode || child.Hidden {
			continue
		}
		c.Cmds = append(c.Cmds, build(child, strings.TrimSpace(path+" "+child.Name), flags))
	}
	if n.DefaultCmd != nil && len(c.Args) == 0 {
		// a default command that takes words (git diffgate's review): its
		// flags are the root's too
		for _, child := range c.Cmds {
			if child.Name == n.DefaultCmd.Name {
				c.Flags = child.Flags
			}
		}
	}
	sort.SliceStable(c.Flags, func(i, j int) bool { return c.Flags[i].Long < c.Flags[j].Long })
	return c
}

var pathsType = reflect.TypeOf([]string{})

func flagOf(f *kong.Flag) Flag {
	out := Flag{Long: f.Name, Short: f.Short, Help: f.Help}
	if f.IsBool() || f.IsCounter() {
		return out
	}
	out.Kind, out.Values = kindOf(f.Value, f.PlaceHolder)
	return out
}

func argOf(p *kong.Positional) Arg {
	a := Arg{Name: p.Name, Many: p.IsSlice()}
	a.Kind, a.Values = kindOf(p, p.Tag.PlaceHolder)
	if a.Many && a.Kind == File {
		a.Kind = Files
	}
	if a.Kind == None && p.Tag.Get("complete") == "" {
		switch {
		case p.Name == "issue":
			a.Kind = Issue
		case a.Many:
			a.Kind = Files
		}
	}
	return a
}

// kindOf decides what a value is: the complete tag; an enum; a slice of
// paths; the placeholder.
func kindOf(v *kong.Value, placeholder string) (string, []string) {
	if k := v.Tag.Get("complete"); k != "" {
		if k == "none" {
			return None, nil
		}
		return k, nil
	}
	if v.Enum != "" {
		var values []string
		for _, e := range strings.Split(v.Enum, ",") {
			if e = strings.TrimSpace(e); e != "" {
				values = append(values, e)
			}
		}
		return Enum, values
	}
	ph := strings.ToUpper(strings.TrimSuffix(placeholder, "..."))
	if v.Target.IsValid() && v.Target.Kind() == reflect.Slice && v.Target.Type().ConvertibleTo(pathsType) && ph == "PATH" {
		return Files, nil
	}
	switch ph {
	case "FILE", "PATH", "BRIEF.MD":
		return File, nil
	case "DIR":
		return Dir, nil
	case "BRANCH", "REV":
		return Ref, nil
	case "RANGE", "A..B":
		return Range, nil
	}
	if v.Name == "path" || v.Name == "paths" {
		return File, nil
	}
	return None, nil
}

// Walk visits every command, the root first.
func (c *Command) Walk(fn func(*Command)) {
	fn(c)
	for _, sub := range c.Cmds {
		sub.Walk(fn)
	}
}

// Names are the names of the subcommands.
func (c *Command) Names() []string {
	out := make([]string, len(c.Cmds))
	for i, s := range c.Cmds {
		out[i] = s.Name
	}
	return out
}

// valueCases calls fn for each flag of each command that takes a value, with
// its case patterns, quoted ('CMD|--long', and 'CMD|-s' for a short name),
// and what it takes (a kind, or enum:VALUES).
func valueCases(root *Command, fn func(patterns []string, value string)) {
	root.Walk(func(c *Command) {
		for _, fl := range c.Flags {
			if fl.Kind == None {
				continue
			}
			pats := []string{shQuote(c.Path + "|--" + fl.Long)}
			if fl.Short != 0 {
				pats = append(pats, shQuote(c.Path+"|-"+string(fl.Short)))
			}
			fn(pats, kindWord(fl.Kind, fl.Values))
		}
	})
}

// argCases calls fn for each argument of each command that completes, with
// its case pattern ('CMD|N'; a slice, 'CMD|'*, takes every argument) and what
// it is.
func argCases(root *Command, fn func(pattern, value string)) {
	root.Walk(func(c *Command) {
		for i, a := range c.Args {
			if a.Kind == None {
				continue
			}
			pat := fmt.Sprintf("'%s|%d'", c.Path, i)
			if a.Many {
				pat = fmt.Sprintf("'%s|'*", c.Path)
			}
			fn(pat, kindWord(a.Kind, a.Values))
		}
	})
}

func kindWord(kind string, values []string) string {
	if kind == Enum {
		return "enum:" + strings.Join(values, " ")
	}
	return kind
}

// shQuote quotes s for sh, bash, zsh and fish alike: single quotes, and no
// single quote inside (none of the generated words holds one).
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "") + "'"
}
