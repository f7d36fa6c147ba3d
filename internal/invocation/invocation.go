// Package invocation tells what the git command that runs a hook was asked to
// do, from its command line: whether the commit it makes is signed (-S,
// --no-gpg-sign), whether it replaces HEAD (--amend), whether it skips the
// hooks that verify (--no-verify). A hook has no other way to know: git passes
// none of it. Whatever cannot be read for certain is reported as unknown, and
// the caller takes the safe side.
package invocation

import (
	"path/filepath"
	"strings"
	"time"
)

// Git is the git process that runs the hook.
type Git struct {
	Pid   int
	Argv  []string
	Start time.Time // when it started, never later than the truth (see Parent)
}

// Intent is what a git command line asks of the commit it makes.
type Intent struct {
	// Known: the command line was read to the end, with certainty. When it is
	// false, nothing else here may be relied on.
	Known bool
	// Command is git's subcommand after aliases: "commit", "merge", "rebase"…
	Command string
	// Sign is +1 for -S or --gpg-sign, -1 for --no-gpg-sign (the last one
	// counts, as in git), 0 when the command line says neither and the
	// configuration (commit.gpgSign) decides.
	Sign int
	// Amend: git commit --amend.
	Amend bool
	// NoVerify: -n or --no-verify (git commit and git merge).
	NoVerify bool
	// Aliased: the command came from an alias, read from the configuration
	// after git read it (the caller checks that it did not change since).
	Aliased bool
}

// maxAliasDepth bounds alias expansion, as git's own loop detection does.
const maxAliasDepth = 8

// Parse reads argv (the git process's command line, argv[0] included). alias
// looks an alias up in the configuration; it may be nil.
func Parse(argv []string, alias func(name string) (string, bool)) Intent {
	if len(argv) == 0 {
		return Intent{}
	}
	base := filepath.Base(argv[0])
	var args []string
	switch {
	case base == "git":
		rest, ok := skipGlobalOptions(argv[1:])
		if !ok || len(rest) == 0 {
			return Intent{}
		}
		args = rest
	case strings.HasPrefix(base, "git-"):
		// a dashed builtin (git-commit), as scripts and old gits run them
		args = append([]string{strings.TrimPrefix(base, "git-")}, argv[1:]...)
	default:
		return Intent{}
	}
	aliased := false
	for depth := 0; ; depth++ {
		if commandOptions[args[0]] != nil || otherSigning[args[0]] {
			break
		}
		if alias == nil || depth == maxAliasDepth {
			return Intent{}
		}
		value, ok := alias(args[0])
		if !ok || strings.HasPrefix(value, "!") {
			// a shell alias runs a git of its own, which would be the
			// process found; an unknown command does not commit
			return Intent{}
		}
		words, ok := SplitCommandLine(value)
		if !ok || len(words) == 0 {
			return Intent{}
		}
		args = append(words, args[1:]...)
		aliased = true
	}
	in := parseCommand(args[0], args[1:])
	in.Aliased = aliased
	return in
}

// skipGlobalOptions skips git's own options (git -C dir -c k=v commit …):
// the rest starts with the command. ok is false for an option this package
// does not know, whose argument might be taken for the command.
func skipGlobalOptions(args []string) (rest []string, ok bool) {
	for len(args) > 0 {
		a := args[0]
		if !strings.HasPrefix(a, "-") {
			return args, true
		}
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case globalFlags[a]:
			args = args[1:]
		case globalValued[name] && hasValue:
			args = args[1:]
		case globalSeparate[a] || a == "-C" || a == "-c":
			if len(args) < 2 {
				return nil, false
			}
			args = args[2:]
		default:
			return nil, false
		}
	}
	return nil, false
}

// globalFlags are git's options that take no value (git --help, 2.39 to 2.47).
var globalFlags = map[string]bool{
	"-p": true, "--paginate": true, "-P": true, "--no-pager": true, "--no-replace-objects": true,
	"--bare": true, "--literal-pathspecs": true, "--no-literal-pathspecs": true, "--glob-pathspecs": true,
	"--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-optional-locks": true,
	"--no-lazy-fetch": true, "--no-advice": true,
}

// globalValued are git's long options that take a value as --opt=value;
// globalSeparate, those that also take it as the next argument.
var (
	globalValued = map[string]bool{
		"--git-dir": true, "--work-tree": true, "--namespace": true, "--super-prefix": true,
		"--config-env": true, "--attr-source": true, "--exec-path": true,
	}
	globalSeparate = map[string]bool{
		"--git-dir": true, "--work-tree": true, "--namespace": true, "--super-prefix": true,
		"--config-env": true, "--attr-source": true,
	}
)

// options is a command's option table: which options take a value, and the
// ones that matter here.
type options struct {
	shortFlags  string          // short options without a value
	shortValued string          // short options whose value may be the next argument (-m msg)
	shortOptArg string          // short options whose value is only stuck to them (-Skey, -uno)
	longValued  map[string]bool // long options that take a value (--message msg)
	longOptArg  map[string]bool // long options whose value is only given with = (--gpg-sign=key)
	longFlags   map[string]bool // the others, without their --no- forms
}

var commandOptions = map[string]*options{
	// git commit, 2.39 to 2.47
	"commit": {
		shortFlags:  "qvseaiponz",
		shortValued: "FmcCt",
		shortOptArg: "Su",
		longValued: set("file", "author", "date", "message", "reedit-message", "reuse-message", "fixup",
			"squash", "template", "cleanup", "trailer", "pathspec-from-file"),
		longOptArg: set("gpg-sign", "untracked-files"),
		longFlags: set("quiet", "verbose", "reset-author", "signoff", "edit", "status", "all", "include",
			"interactive", "patch", "only", "verify", "dry-run", "short", "branch", "ahead-behind", "porcelain",
			"long", "null", "amend", "post-rewrite", "pathspec-file-nul", "allow-empty", "allow-empty-message"),
	},
	// git merge, 2.39 to 2.47
	"merge": {
		shortFlags:  "nevq",
		shortValued: "smFX",
		shortOptArg: "S",
		longValued:  set("strategy", "strategy-option", "message", "file", "into-name", "cleanup"),
		longOptArg:  set("gpg-sign", "log"),
		longFlags: set("stat", "summary", "squash", "commit", "edit", "ff", "ff-only", "rerere-autoupdate",
			"verify-signatures", "verbose", "quiet", "abort", "quit", "continue", "allow-unrelated-histories",
			"progress", "autostash", "signoff", "verify", "overwrite-ignore"),
	},
}

// otherSigning are the commands that make commits with hooks and may sign
// them (-S), whose options are not read exactly: for them Sign is +1 when
// anything on the command line might ask for a signature, and never -1.
var otherSigning = map[string]bool{
	"cherry-pick": true, "revert": true, "rebase": true, "am": true, "pull": true,
}

// parseCommand reads a command's own arguments.
func parseCommand(cmd string, args []string) Intent {
	in := Intent{Command: cmd, Known: true}
	opts := commandOptions[cmd]
	if opts == nil {
		for _, a := range args {
			if a == "--" {
				break
			}
			if mightSign(a) {
				in.Sign = 1
			}
		}
		return in
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return in
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			full, negated, ok := opts.long(name)
			if !ok {
				return Intent{}
			}
			if opts.longValued[full] && !negated && !hasValue {
				i++ // its value is the next argument
				if i == len(args) {
					return Intent{}
				}
			}
			in.apply(full, negated)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			skip, ok := in.shorts(opts, a[1:])
			if !ok {
				return Intent{}
			}
			if skip {
				i++
				if i == len(args) {
					return Intent{}
				}
			}
		}
		// anything else is a path, or a branch to merge
	}
	return in
}

// shorts reads a group of short options (-qS, -am msg): skip is true when the
// last one takes the next argument as its value.
func (in *Intent) shorts(opts *options, group string) (skip, ok bool) {
	for j := 0; j < len(group); j++ {
		c := group[j]
		switch {
		case strings.IndexByte(opts.shortValued, c) >= 0:
			in.applyShort(c)
			return j == len(group)-1, true
		case strings.IndexByte(opts.shortOptArg, c) >= 0:
			in.applyShort(c)
			return false, true // the rest of the group is its value
		case strings.IndexByte(opts.shortFlags, c) >= 0:
			in.applyShort(c)
		default:
			return false, false
		}
	}
	return false, true
}

func (in *Intent) applyShort(c byte) {
	switch {
	case c == 'S':
		in.Sign = 1
	case c == 'n' && in.Command == "commit":
		in.NoVerify = true
	}
}

// apply records a long option (its full name) as git would read it.
func (in *Intent) apply(name string, negated bool) {
	switch name {
	case "gpg-sign":
		in.Sign = 1
		if negated {
			in.Sign = -1
		}
	case "amend":
		in.Amend = !negated
	case "verify":
		in.NoVerify = negated
	}
}

// long finds the option a long name stands for: git takes any unambiguous
// prefix (--amen), and --no-<name> negates. ok is false when it names none,
// or more than one.
func (o *options) long(name string) (full string, negated, ok bool) {
	if full, ok := o.match(name); ok {
		return full, false, true
	}
	if rest, isNo := strings.CutPrefix(name, "no-"); isNo {
		if full, ok := o.match(rest); ok {
			return full, true, true
		}
	}
	return "", false, false
}

func (o *options) match(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	var found []string
	for _, table := range []map[string]bool{o.longValued, o.longOptArg, o.longFlags} {
		if table[name] {
			return name, true
		}
		for full := range table {
			if strings.HasPrefix(full, name) {
				found = append(found, full)
			}
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// mightSign reports whether an argument of a command whose options are not
// read exactly might ask for a signature.
func mightSign(a string) bool {
	if strings.HasPrefix(a, "--") {
		name, _, _ := strings.Cut(a[2:], "=")
		return len(name) >= 1 && strings.HasPrefix("gpg-sign", name)
	}
	return strings.HasPrefix(a, "-") && strings.Contains(a, "S")
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// SplitCommandLine splits an alias's value into words as git does
// (split_cmdline): white space separates, single and double quotes group, a
// backslash escapes the next character outside single quotes. ok is false
// for an unclosed quote.
func SplitCommandLine(s string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && quote != '\'':
			i++
			if i == len(s) {
				return nil, false
			}
			cur.WriteByte(s[i])
			inWord = true
		case quote == 0 && (c == '\'' || c == '"'):
			quote, inWord = c, true
		case c == quote:
			quote = 0
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}
