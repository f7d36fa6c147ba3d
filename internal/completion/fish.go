package completion

import (
	"fmt"
	"io"
	"strings"
)

// Fish writes the fish script: complete lines for the executable, whose
// conditions ask a function of the script where the command line stands, and
// a line for git that hands `git tdd …` to them (fish 3.6's git completion
// looks for git-tdd under the wrong name).
func Fish(w io.Writer, root *Command, s Spec) error {
	f := funcPrefix(s)
	b := &strings.Builder{}
	fmt.Fprintf(b, "# fish completion for %s (git %s), generated from its command tree by `git %s completion fish`.\n", s.Prog, s.Git, s.Git)
	fmt.Fprintf(b, "# Save it as ~/.config/fish/conf.d/%s.fish (loaded at start, so `git %s <Tab>` works too),\n# or in a line of config.fish:  git %s completion fish | source\n\n", s.Prog, s.Git, s.Git)
	// the tree, for the function that walks the command line
	fmt.Fprintf(b, "function %s_cmds -a cmd -d 'the subcommands of cmd'\n    switch \"$cmd\"\n", f)
	root.Walk(func(c *Command) {
		if len(c.Cmds) > 0 {
			fmt.Fprintf(b, "        case %s\n            echo %s\n", fishCase(c.Path), shQuote(strings.Join(c.Names(), " ")))
		}
	})
	fmt.Fprintf(b, "    end\nend\n\n")
	fmt.Fprintf(b, "function %s_value -a cmd flag -d 'what flag of cmd takes; nothing for a switch'\n    switch \"$cmd|$flag\"\n", f)
	valueCases(root, func(pats []string, v string) {
		fmt.Fprintf(b, "        case %s\n            echo %s\n", strings.Join(pats, " "), shQuote(v))
	})
	fmt.Fprintf(b, "    end\nend\n\n")
	r := strings.NewReplacer("@F@", f, "@PROG@", s.Prog, "@GIT@", s.Git, "@ISSUES@", s.Issues)
	b.WriteString(r.Replace(fishDriver))
	fmt.Fprintf(b, "complete -c %s -f\n", s.Prog)
	root.Walk(func(c *Command) {
		at := shQuote(c.Path)
		for _, sub := range c.Cmds {
			fmt.Fprintf(b, "complete -c %s -n \"%s_at %s; and %s_next cmd\" -a %s -d %s\n", s.Prog, f, at, f, sub.Name, shQuote(oneLine(sub.Help)))
		}
		for _, fl := range c.Flags {
			line := fmt.Sprintf("complete -c %s -n \"%s_at %s\" -l %s", s.Prog, f, at, fl.Long)
			if fl.Short != 0 {
				line += " -s " + string(fl.Short)
			}
			fmt.Fprintf(b, "%s%s -d %s\n", line, fishValue(fl.Kind, fl.Values, s), shQuote(oneLine(fl.Help)))
		}
		for i, a := range c.Args {
			if a.Kind == None {
				continue
			}
			next := "arg"
			if a.Many {
				next = "args"
			}
			fmt.Fprintf(b, "complete -c %s -n \"%s_at %s; and %s_next %s %d\"%s\n", s.Prog, f, at, f, next, i, fishValue(a.Kind, a.Values, s))
		}
	})
	fmt.Fprintf(b, "complete -c %s -n \"%s_next paths\" -F\n", s.Prog, f)
	_, err := io.WriteString(w, b.String())
	return err
}

func fishCase(path string) string {
	if path == "" {
		return "''"
	}
	return shQuote(path)
}

// fishValue is what a complete line adds for a value of kind.
func fishValue(kind string, values []string, s Spec) string {
	refs := "(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)"
	switch kind {
	case File, Files:
		return " -r -F"
	case Dir:
		return " -x -a '(__fish_complete_directories (commandline -ct))'"
	case Issue:
		return fmt.Sprintf(" -x -a '(%s %s 2>/dev/null)'", s.Prog, s.Issues)
	case Ref:
		return " -x -a \"" + refs + "\""
	case Range:
		return " -x -a \"(" + funcPrefix(s) + "_ranges)\""
	case Enum:
		return " -x -a " + shQuote(strings.Join(values, " "))
	}
	return ""
}

const fishDriver = `function @F@_state -d 'where the command line stands: cmd path, arguments so far, and what the next word is'
    set -l all (commandline -opc)
    set -l words $all[2..-1]
    # git @GIT@ …: from the word after @GIT@
    if test "$all[1]" = git; and contains -- @GIT@ $words
        set -l i (contains -i -- @GIT@ $words)
        set -l after
        test $i -lt (count $words); and set after $words[(math $i + 1)..-1]
        set words $after
    end
    set -l cmdpath ''
    set -l n 0
    set -l want ''
    set -l paths ''
    set -l rest ''
    for w in $words
        if test -n "$want"
            set want ''
            continue
        end
        if test -z "$rest"
            switch $w
                case --
                    set rest 1
                    set paths ''
                    continue
                case '--*=*'
                    set paths ''
                    continue
                case '-*'
                    set paths ''
                    switch (@F@_value "$cmdpath" $w)
                        case ''
                        case files
                            set paths 1
                            set want 1
                        case '*'
                            set want 1
                    end
                    continue
            end
            test -n "$paths"; and continue
        end
        if test $n -eq 0 -a -z "$rest"; and contains -- $w (string split ' ' -- (@F@_cmds "$cmdpath"))
            set cmdpath (string trim -- "$cmdpath $w")
            continue
        end
        set n (math $n + 1)
    end
    set -l next arg
    test -n "$want"; and set next value
    test -n "$paths"; and set next paths
    printf '%s\n' "$cmdpath" $n $next
end

function @F@_at -a cmd -d 'the command line is at cmd'
    test (@F@_state)[1] = "$cmd"
end

function @F@_next -a what n -d 'the next word is a subcommand (cmd), the n-th argument (arg), the n-th or a later one (args), or one of several paths (paths)'
    set -l s (@F@_state)
    switch $what
        case cmd
            test $s[2] -eq 0 -a $s[3] = arg
        case arg
            test $s[3] = arg -a $s[2] -eq $n
        case args
            test $s[3] = arg -a $s[2] -ge $n
        case paths
            test $s[3] = paths
    end
end

function @F@_ranges -d 'refs, after what the current word has up to ..'
    set -l cur (commandline -ct)
    set -l left (string match -r '^.*\.\.\.?' -- $cur)
    for ref in (git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)
        echo $left$ref
    end
end

# git @GIT@ <Tab>: hand the words after @GIT@ to @PROG@'s completion
function @F@_from_git
    set -l words (commandline -opc)
    set -l i (contains -i -- @GIT@ $words)
    set -l after
    test $i -lt (count $words); and set after $words[(math $i + 1)..-1]
    complete -C "@PROG@ $after "(commandline -ct)
end
complete -c git -f -n "__fish_git_using_command @GIT@" -a "(@F@_from_git)"

`
