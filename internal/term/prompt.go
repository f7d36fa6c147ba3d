package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/confine"
	"github.com/git-tdd/git-tdd/internal/heldtty"
	"golang.org/x/term"
)

// ErrNoTerminal means there is no controlling terminal to ask a human on.
var ErrNoTerminal = errors.New("no terminal to ask a human on")

// ErrNoAnswer means the human gave no valid answer (three invalid ones, or end of
// input); callers count it as a refusal.
var ErrNoAnswer = errors.New("no valid answer")

// attempts is how many invalid answers re-ask before counting as a refusal (DESIGN §3).
const attempts = 3

// TTY is the controlling terminal, opened for one command. Questions are only ever
// read here, never from standard input, which an agent controls.
type TTY struct {
	f       *os.File
	Palette Palette
	warn    io.Writer // where a process killed before a question is named
}

// ErrPagedByGit means git started a pager around this command: pager.diffgate
// or pager.tdd (or core.pager with pager.<cmd> = true), which a repository's
// own .git/config can set. That pager holds the terminal while the question
// is asked, and could draw a doctored review over it.
var ErrPagedByGit = errors.New("git runs this command under a pager (pager.<command> in git's configuration), which shares the terminal with the question and could draw over it; run it as git --no-pager <command>")

// OpenTTY opens /dev/tty; without a controlling terminal it returns
// ErrNoTerminal, under a pager git started ErrPagedByGit, and on a terminal
// a live git tdd agent session of the repository (its common git dir) holds,
// an error wrapping heldtty.ErrHeld: the agent there reads the answer and
// draws the screen.
func OpenTTY(colorFlag string, getenv func(string) string, commonDir string) (*TTY, error) {
	if getenv("GIT_PAGER_IN_USE") != "" {
		return nil, ErrPagedByGit
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, ErrNoTerminal
	}
	if err := heldtty.Check(commonDir, f); err != nil {
		f.Close()
		return nil, err
	}
	t := &TTY{f: f, Palette: NewPalette(ColorEnabled(colorFlag, f, getenv)), warn: os.Stderr}
	// also before what the question is about is shown, so that nothing draws
	// over it; one that cannot be killed refuses the question (ask)
	killStrays(t.warn)
	return t, nil
}

// Writer is the terminal, for showing what the human decides on.
func (t *TTY) Writer() io.Writer { return t.f }

// File is the terminal, for a program the human works in (an editor).
func (t *TTY) File() *os.File { return t.f }

// Width is the terminal's width.
func (t *TTY) Width() int { return Width(t.f) }

// Rows is the terminal's height, or 0 when it reports none.
func (t *TTY) Rows() int {
	_, rows, err := term.GetSize(int(t.f.Fd()))
	if err != nil {
		return 0
	}
	return rows
}

// Close releases the terminal.
func (t *TTY) Close() error { return t.f.Close() }

// Choice is one accepted answer: its word and the short forms that also select it.
type Choice struct {
	Word    string
	Aliases []string
}

// Choose asks question until the answer is one of choices (case-insensitive whole
// words); it returns the chosen Word. Typeahead is discarded before each question,
// so answers typed or piped in advance do not count.
func (t *TTY) Choose(ctx context.Context, question string, choices []Choice) (string, error) {
	for i := 0; i < attempts; i++ {
		answer, err := t.ask(ctx, question)
		if err != nil {
			return "", err
		}
		if w, ok := match(answer, choices); ok {
			return w, nil
		}
		fmt.Fprintf(t.f, "Please answer %s.\n", listWords(choices))
	}
	return "", ErrNoAnswer
}

// Line asks question and returns the trimmed answer.
func (t *TTY) Line(ctx context.Context, question string) (string, error) {
	return t.ask(ctx, question)
}

func (t *TTY) ask(ctx context.Context, question string) (string, error) {
	if err := killStrays(t.warn); err != nil {
		return "", err
	}
	typed, err := flushInput(t.f)
	if err != nil {
		return "", fmt.Errorf("discarding typeahead on the terminal: %w", err)
	}
	if typed {
		// said, so that an answer typed early is typed again, not lost unseen
		fmt.Fprintln(t.f, "input typed before the question was discarded")
	}
	if _, err := io.WriteString(t.f, question+" "); err != nil {
		return "", err
	}
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := readLine(t.f)
		ch <- result{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.f)
		return "", ctx.Err()
	case r := <-ch:
		if errors.Is(r.err, io.EOF) {
			fmt.Fprintln(t.f)
			return "", ErrNoAnswer
		}
		return strings.TrimSpace(r.line), r.err
	}
}

// killStrays kills, naming each, what a program an agent controls left
// running (see package confine; none should be left): no question is asked
// while one could draw on the screen or read the answer. git-tdd's own
// programs (git, the pager, which has exited by now) are not touched.
func killStrays(w io.Writer) error {
	killed, err := confine.KillStrays()
	for _, p := range killed {
		args := make([]string, len(p.Args))
		for i, a := range p.Args {
			args[i] = Path(a)
		}
		Warn(w, filepath.Base(os.Args[0]), "killed process %d (%s), left running by a program an agent controls: anything it drew on the screen is not this command's", p.Pid, strings.Join(args, " "))
	}
	if err != nil {
		return fmt.Errorf("%w; no question is asked while they run", err)
	}
	return nil
}

// readLine reads one line. The terminal is in canonical mode, so each read returns
// at most one line and nothing typed later is consumed early.
func readLine(f *os.File) (string, error) {
	var b strings.Builder
	buf := make([]byte, 256)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if i := strings.IndexByte(b.String(), '\n'); i >= 0 {
			return b.String()[:i], nil
		}
		if n == 0 || err != nil {
			if err == nil || b.Len() == 0 {
				err = io.EOF
			}
			return b.String(), err
		}
	}
}

func match(answer string, choices []Choice) (string, bool) {
	a := strings.ToLower(answer)
	for _, c := range choices {
		if a == strings.ToLower(c.Word) {
			return c.Word, true
		}
		for _, al := range c.Aliases {
			if a == strings.ToLower(al) {
				return c.Word, true
			}
		}
	}
	return "", false
}

func listWords(choices []Choice) string {
	words := make([]string, len(choices))
	for i, c := range choices {
		words[i] = c.Word
	}
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
