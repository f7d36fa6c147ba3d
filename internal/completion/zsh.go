package completion

import (
	"fmt"
	"io"
	"strings"
)

// Zsh writes the zsh script: the function _git-<name>, which completes both
// `git-tdd <Tab>` (compdef) and `git tdd <Tab>` (zsh's own _git calls
// _git-<name> for a git command it does not know, and lists the command with
// the user-commands style the script adds to).
func Zsh(w io.Writer, root *Command, s Spec) error {
	f := funcPrefix(s)
	b := &strings.Builder{}
	fmt.Fprintf(b, "#compdef %s\n", s.Prog)
	fmt.Fprintf(b, "# zsh completion for %s (git %s), generated from its command tree by `git %s completion zsh`.\n", s.Prog, s.Git, s.Git)
	fmt.Fprintf(b, "# Put it in a directory of $fpath as _%s before compinit runs, or in ~/.zshrc after it:\n#   source <(git %s completion zsh)\n\n", s.Prog, s.Git)
	described := func(name, help string) string {
		return shQuote(strings.ReplaceAll(name, ":", `\:`) + ":" + strings.ReplaceAll(oneLine(help), ":", `\:`))
	}
	fmt.Fprintf(b, "# %s_cmds CMD: reply, the subcommands of CMD as name:description\n%s_cmds() {\n\treply=()\n\tcase \"$1\" in\n", f, f)
	root.Walk(func(c *Command) {
		if len(c.Cmds) == 0 {
			return
		}
		var items []string
		for _, sub := range c.Cmds {
			items = append(items, described(sub.Name, sub.Help))
		}
		fmt.Fprintf(b, "\t%s) reply=(%s) ;;\n", shQuote(c.Path), strings.Join(items, " "))
	})
	fmt.Fprintf(b, "\tesac\n}\n\n")
	fmt.Fprintf(b, "# %s_flags CMD: reply, the flags of CMD as flag:description\n%s_flags() {\n\treply=()\n\tcase \"$1\" in\n", f, f)
	root.Walk(func(c *Command) {
		var items []string
		for _, fl := range c.Flags {
			items = append(items, described("--"+fl.Long, fl.Help))
			if fl.Short != 0 {
				items = append(items, described("-"+string(fl.Short), fl.Help))
			}
		}
		fmt.Fprintf(b, "\t%s) reply=(%s) ;;\n", shQuote(c.Path), strings.Join(items, " "))
	})
	fmt.Fprintf(b, "\tesac\n}\n\n")
	fmt.Fprintf(b, "# %s_value CMD FLAG: REPLY, what FLAG takes (a kind, or enum:VALUES); empty for a switch\n%s_value() {\n\tREPLY=''\n\tcase \"$1|$2\" in\n", f, f)
	valueCases(root, func(pats []string, v string) {
		fmt.Fprintf(b, "\t%s) REPLY=%s ;;\n", strings.Join(pats, "|"), shQuote(v))
	})
	fmt.Fprintf(b, "\tesac\n}\n\n")
	fmt.Fprintf(b, "# %s_arg CMD N: REPLY, what the N-th argument (from 0) of CMD is\n%s_arg() {\n\tREPLY=''\n\tcase \"$1|$2\" in\n", f, f)
	argCases(root, func(pat, v string) { fmt.Fprintf(b, "\t%s) REPLY=%s ;;\n", pat, shQuote(v)) })
	fmt.Fprintf(b, "\tesac\n}\n\n")
	r := strings.NewReplacer("@F@", f, "@PROG@", s.Prog, "@GIT@", s.Git, "@ISSUES@", s.Issues, "@HELP@", shQuote(s.Git+":"+oneLine(root.Help)))
	b.WriteString(r.Replace(zshDriver))
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine is the first line of a help text.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

const zshDriver = `# _@PROG@: words[1] is git-@GIT@, or @GIT@ when zsh's _git calls it.
_@PROG@() {
	local cmdpath='' n=0 i w kind='' want='' paths='' rest='' cur=${words[CURRENT]} REPLY
	local -a reply
	for ((i = 2; i < CURRENT; i++)); do
		w=${words[i]}
		if [[ -n $want ]]; then
			want=''
			continue
		fi
		if [[ -z $rest ]]; then
			case $w in
			--) rest=1; paths=''; continue ;;
			--*=*) paths=''; continue ;;
			-*)
				paths=''
				@F@_value "$cmdpath" "$w"
				case $REPLY in
				'') ;;
				files) paths=1; want=1 ;;
				*) want=1 ;;
				esac
				continue ;;
			esac
			[[ -n $paths ]] && continue
		fi
		@F@_cmds "$cmdpath"
		if ((n == 0)) && [[ -z $rest ]] && ((${reply[(I)${(b)w}:*]})); then
			cmdpath=${cmdpath:+$cmdpath }$w
			continue
		fi
		((n++))
	done
	if [[ -n $want ]]; then
		@F@_value "$cmdpath" "${words[CURRENT-1]}"
		kind=$REPLY
	elif [[ -z $rest && $cur == --*=* ]]; then
		@F@_value "$cmdpath" "${cur%%=*}"
		kind=$REPLY
		compset -P '*='
	elif [[ -z $rest && $cur == -* ]]; then
		@F@_flags "$cmdpath"
		_describe -t options 'option' reply
		return
	elif [[ -n $paths ]]; then
		kind=files
	else
		@F@_cmds "$cmdpath"
		if ((n == 0)) && [[ -z $rest ]] && ((${#reply})); then
			_describe -t commands 'command' reply
			return
		fi
		@F@_arg "$cmdpath" "$n"
		kind=$REPLY
	fi
	case $kind in
	file | files) _files ;;
	dir) _files -/ ;;
	issue) compadd -- ${(f)"$(@PROG@ @ISSUES@ 2>/dev/null)"} ;;
	ref) compadd -- ${(f)"$(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)"} ;;
	range)
		compset -P '*..'
		compadd -- ${(f)"$(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)"} ;;
	enum:*) compadd -- ${=kind#enum:} ;;
	esac
}

# git @GIT@ <Tab> with zsh's own _git: list @GIT@ among git's commands
() {
	local -a commands
	zstyle -a ':completion:*:*:git:*' user-commands commands
	zstyle ':completion:*:*:git:*' user-commands ${commands:#@GIT@:*} @HELP@
}

if [[ $funcstack[1] == _@PROG@ ]]; then
	_@PROG@ "$@"
elif (($+functions[compdef])); then
	compdef _@PROG@ @PROG@
fi
`
