// Package cmdline runs a command tree with the toolkit's conventions: kong parsing,
// -h with the exit-code table, --version, and the one place where errors are
// printed and the exit code is chosen.
package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/term"
	"github.com/git-tdd/git-tdd/internal/version"
)

// Globals are the flags every command has.
type Globals struct {
	Directory string      `short:"C" name:"directory" placeholder:"DIR" help:"Run as if started in DIR, like git -C."`
	Color     string      `enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Colour output: auto, always or never."`
	NoPager   bool        `name:"no-pager" help:"Show reviews straight on the terminal, not through git's pager."`
	Version   VersionFlag `help:"Print the version and exit."`
}

// VersionFlag prints the version and exits, as kong.VersionFlag does, but
// works the version out only when asked: reading the build information and
// parsing git describe's words is start-up time every other command paid.
type VersionFlag bool

// BeforeReset prints "git tdd 1.2.3 (commit …)" and exits 0.
func (VersionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, app.Model.Name+" "+version.String())
	app.Exit(0)
	return nil
}

// Env is what a command's Run method gets: the streams, the environment, the
// context that a signal cancels, and the global flags.
type Env struct {
	Ctx    context.Context
	Prog   string // "git-diffgate", used in diagnostics
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	*Globals
	warned map[string]bool // the warnings given once (warnOnce)
	later  sync.WaitGroup  // Later's work, which Run waits for
}

// Later runs f in the background: the command goes on, and exits only once f
// has returned. For cleaning up off the way to the result (a confined run's
// temporary directory: each removal is a disk write).
func (e *Env) Later(f func()) {
	e.later.Go(f)
}

// Dir is the directory to run in.
func (e *Env) Dir() string {
	if e.Globals != nil && e.Directory != "" {
		return e.Directory
	}
	return "."
}

// Cwd is the absolute directory the command runs in, against which the paths
// it is given are resolved: -C's, else the process's.
func (e *Env) Cwd() (string, error) {
	d, err := filepath.Abs(e.Dir())
	return d, exitcode.Wrap(exitcode.Usage, err)
}

// Stdout colours for standard output, decided once.
func (e *Env) StdoutPalette() term.Palette {
	return term.NewPalette(term.ColorEnabled(e.Color, e.Stdout, e.Getenv))
}

// Warn prints a warning on stderr.
func (e *Env) Warn(format string, args ...any) { term.Warn(e.Stderr, e.Prog, format, args...) }

// App describes one executable.
type App struct {
	Prog        string // executable name: git-diffgate
	Usage       string // name in usage lines: git diffgate
	Description string
	CLI         any      // the kong struct; it must embed Globals as `embed:""`
	Globals     *Globals // the embedded Globals inside CLI
	// Direct are internal commands that git's hooks run on every commit: they
	// skip building the command-line model, which costs milliseconds each time.
	Direct map[string]func(env *Env, args []string) error
}

type exitPanic int

// Run parses args and runs the selected command. It is the only place that prints
// an error and chooses the exit code.
func Run(app App, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if os.Getenv("GOGC") == "" {
		// a command lives for milliseconds and allocates a few megabytes: a
		// collection at the default 4 MB costs more than it frees (GOGC,
		// when set, has the last word)
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	env := &Env{Ctx: ctx, Prog: app.Prog, Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Globals: app.Globals}
	defer env.later.Wait()
	// before any program starts (git runs hooks and filters a repository
	// names): whatever one leaves stays below this process, to be killed
	if err := confine.NoInheritance(); err != nil {
		return finish(env, err)
	}
	if err := confine.BecomeSubreaper(); err != nil {
		return finish(env, err)
	}
	if len(args) > 0 && app.Direct[args[0]] != nil {
		env.Globals = &Globals{Color: "auto"}
		if err := env.checkCwd(); err != nil {
			return finish(env, err)
		}
		return finish(env, app.Direct[args[0]](env, args[1:]))
	}
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(exitPanic)
			if !ok {
				panic(r)
			}
			code = int(c)
		}
	}()
	parse := func(app App) (*kong.Kong, *kong.Context, error) {
		env.Globals = app.Globals
		parser, err := app.Parser(kong.Writers(stdout, stderr), kong.Exit(func(c int) { panic(exitPanic(c)) }), kong.Bind(env))
		if err != nil {
			panic(err) // the command tree itself is wrong: a programming error
		}
		kctx, err := parser.Parse(args)
		return parser, kctx, err
	}
	// the command args name, alone; when they name none, or do not parse,
	// the whole tree, whose error and hint are the ones to give
	one, pruned := app.named(args)
	parser, kctx, err := parse(one)
	if err != nil && pruned {
		parser, kctx, err = parse(app)
	}
	if err != nil {
		term.PrintError(stderr, app.Prog, didYouMean(err, parser, args))
		fmt.Fprintf(stderr, "hint: run '%s -h' for usage\n", helpFor(err, app.Usage, args))
		return exitcode.Usage
	}
	if err := env.checkCwd(); err != nil {
		return finish(env, err)
	}
	return finish(env, kctx.Run())
}

// helpFor is the command whose help a usage error points to: the deepest one
// the arguments name, else the executable's.
func helpFor(err error, usage string, args []string) string {
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil {
		return usage
	}
	named := map[string]bool{}
	for _, a := range args {
		if a == "--" {
			break
		}
		named[a] = true
	}
	help := usage
	for _, p := range pe.Context.Path {
		if p.Command != nil && named[p.Command.Name] {
			help = p.Command.FullPath()
		}
	}
	return help
}

// didYouMean adds the command a mistyped one most likely meant, where kong
// does not: git diffgate's default command takes words, so "revew" reaches it
// as an argument.
func didYouMean(err error, parser *kong.Kong, args []string) error {
	word, ok := strings.CutPrefix(err.Error(), "unexpected argument ")
	if !ok || strings.Contains(word, "did you mean") || word != commandWord(args) {
		return err
	}
	var names []string
	for _, n := range parser.Model.Children {
		if n.Type == kong.CommandNode && !n.Hidden {
			names = append(names, n.Name)
			names = append(names, n.Aliases...)
		}
	}
	if near := term.Nearest(word, names); near != "" {
		return fmt.Errorf("%w, did you mean %q?", err, near)
	}
	return err
}

// commandWord is the first argument that is not a global flag or its value:
// where the command's name goes.
func commandWord(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--directory" || a == "--color":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// Paths is a flag that takes one or more paths, space-separated as the
// synopses write them (--context a.py b.py), and that may be repeated: it takes
// the words after it up to the next one that starts with "-" (or "--"). A path
// may hold a comma; one that starts with "-" is given as --flag=-path.
type Paths []string

// Decode takes the flag's value and the paths that follow it.
func (p *Paths) Decode(ctx *kong.DecodeContext) error {
	var first string
	if err := ctx.Scan.PopValueInto("path", &first); err != nil {
		return err
	}
	*p = append(*p, first)
	for {
		t := ctx.Scan.Peek()
		s, ok := t.Value.(string)
		if t.Type != kong.UntypedToken || !ok || s == "" || strings.HasPrefix(s, "-") {
			return nil
		}
		ctx.Scan.Pop()
		*p = append(*p, s)
	}
}

// Parser builds the command-line model, for Run and for the man pages.
func (app App) Parser(options ...kong.Option) (*kong.Kong, error) {
	return kong.New(app.CLI, append([]kong.Option{
		kong.Name(app.Usage),
		kong.Description(app.Description),
		kong.Help(helpWithExitCodes),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	}, options...)...)
}

// finish prints err, if any, and chooses the exit code.
func finish(env *Env, err error) int {
	if errors.Is(err, context.Canceled) && env.Ctx.Err() != nil {
		fmt.Fprintf(env.Stderr, "%s: interrupted\n", env.Prog)
		return exitcode.Interrupted
	}
	term.PrintError(env.Stderr, env.Prog, err)
	return exitcode.Of(err)
}

func helpWithExitCodes(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	w := ctx.Stdout
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.TrimSpace(exitcode.Table))
	return nil
}
