package completion

import (
	"fmt"
	"io"
	"strings"
)

// Bash writes the bash script: complete -F for the executable, and
// _git_<name>, which git's own bash completion calls for `git <name> <Tab>`.
func Bash(w io.Writer, root *Command, s Spec) error {
	f := funcPrefix(s)
	b := &strings.Builder{}
	fmt.Fprintf(b, "# bash completion for %s (git %s), generated from its command tree by `git %s completion bash`.\n", s.Prog, s.Git, s.Git)
	fmt.Fprintf(b, "# Load it from ~/.local/share/bash-completion/completions/%s or a line in ~/.bashrc:\n#   source <(git %s completion bash)\n\n", s.Prog, s.Git)
	writeCases(b, f+"_cmds", "the subcommands of the command $1", root, func(c *Command) (string, bool) {
		return strings.Join(c.Names(), " "), len(c.Cmds) > 0
	})
	writeCases(b, f+"_flags", "the flags of the command $1", root, func(c *Command) (string, bool) {
		var names []string
		for _, fl := range c.Flags {
			names = append(names, "--"+fl.Long)
			if fl.Short != 0 {
				names = append(names, "-"+string(fl.Short))
			}
		}
		return strings.Join(names, " "), true
	})
	// what a flag takes, and what each argument is
	fmt.Fprintf(b, "# %s_value CMD FLAG: what FLAG of CMD takes (a kind, or enum:VALUES); nothing for a switch\n%s_value() {\n\tcase \"$1|$2\" in\n", f, f)
	valueCases(root, func(pats []string, v string) {
		fmt.Fprintf(b, "\t%s) echo %s ;;\n", strings.Join(pats, "|"), shQuote(v))
	})
	fmt.Fprintf(b, "\tesac\n}\n\n")
	fmt.Fprintf(b, "# %s_arg CMD N: what the N-th argument (from 0) of CMD is\n%s_arg() {\n\tcase \"$1|$2\" in\n", f, f)
	argCases(root, func(pat, v string) { fmt.Fprintf(b, "\t%s) echo %s ;;\n", pat, shQuote(v)) })
	fmt.Fprintf(b, "\tesac\n}\n\n")
	r := strings.NewReplacer("@F@", f, "@PROG@", s.Prog, "@GIT@", s.Git, "@ISSUES@", s.Issues)
	b.WriteString(r.Replace(bashDriver))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCases writes a function that echoes, for each command path, what fn says.
func writeCases(b *strings.Builder, name, what string, root *Command, fn func(*Command) (string, bool)) {
	fmt.Fprintf(b, "# %s: %s\n%s() {\n\tcase \"$1\" in\n", name, what, name)
	root.Walk(func(c *Command) {
		if v, ok := fn(c); ok {
			fmt.Fprintf(b, "\t%s) echo %s ;;\n", shQuote(c.Path), shQuote(v))
		}
	})
	fmt.Fprintf(b, "\tesac\n}\n\n")
}

func funcPrefix(s Spec) string { return "__git_" + strings.ReplaceAll(s.Git, "-", "_") }

const bashDriver = `# @F@_complete N: completes COMP_WORDS from index N, the first word after the
# command's name: the subcommand path, then flags, their values and arguments.
@F@_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' n=0 i w kind='' want='' paths='' rest=''
	for ((i = $1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
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
				kind=$(@F@_value "$cmdpath" "$w")
				case $kind in
				'') ;;
				files) paths=1; want=1 ;;
				*) want=1 ;;
				esac
				continue ;;
			esac
			[[ -n $paths ]] && continue
		fi
		if ((n == 0)) && [[ -z $rest && " $(@F@_cmds "$cmdpath") " == *" $w "* ]]; then
			cmdpath=${cmdpath:+$cmdpath }$w
			continue
		fi
		((n++))
	done
	local prefix=''
	if [[ -n $want ]]; then
		kind=$(@F@_value "$cmdpath" "${COMP_WORDS[COMP_CWORD-1]}")
	elif [[ -z $rest && $cur == --*=* ]]; then
		kind=$(@F@_value "$cmdpath" "${cur%%=*}")
		prefix=${cur%%=*}=
		cur=${cur#*=}
	elif [[ -z $rest && $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(@F@_flags "$cmdpath")" -- "$cur"))
		return
	elif [[ -n $paths ]]; then
		kind=files
	elif ((n == 0)) && [[ -z $rest && -n $(@F@_cmds "$cmdpath") ]]; then
		COMPREPLY=($(compgen -W "$(@F@_cmds "$cmdpath")" -- "$cur"))
		return
	else
		kind=$(@F@_arg "$cmdpath" "$n")
	fi
	@F@_values "$kind" "$cur" "$prefix"
}

# @F@_values KIND CUR PREFIX: the completions of CUR as a KIND.
@F@_values() {
	local kind=$1 cur=$2 prefix=$3 IFS=$'\n'
	COMPREPLY=()
	case $kind in
	file | files)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	dir)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	issue)
		COMPREPLY=($(compgen -W "$(@PROG@ @ISSUES@ 2>/dev/null)" -- "$cur")) ;;
	ref)
		COMPREPLY=($(compgen -W "$(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)" -- "$cur")) ;;
	range)
		local left=''
		if [[ $cur == *..* ]]; then
			left=${cur%..*}..
			[[ $cur == *...* ]] && left=${cur%...*}...
			cur=${cur#"$left"}
		fi
		COMPREPLY=($(compgen -P "$left" -W "$(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)" -- "$cur")) ;;
	enum:*)
		IFS=' '
		COMPREPLY=($(compgen -W "${kind#enum:}" -- "$cur")) ;;
	esac
	if [[ -n $prefix ]]; then
		COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
	fi
}

# @PROG@ <Tab>
@F@_main() {
	@F@_complete 1
}
complete -F @F@_main @PROG@

# git @GIT@ <Tab>: git's bash completion calls _git_@GIT@ for the command git-@GIT@.
_git_@GIT@() {
	local i
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == @GIT@ ]] && break
	done
	@F@_complete $((i + 1))
}
`
