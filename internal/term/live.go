package term

import (
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// How often a live line is shown: repainted in place on a terminal, printed
// as a line of its own elsewhere (a file, a pipe, a CI log), where a line a
// second would bury everything else.
const (
	Repaint = time.Second
	Quiet   = 10 * time.Second
)

// Clock is the time a Live line keeps; tests fake it.
type Clock interface {
	Now() time.Time
	// Ticker ticks every d until stop is called.
	Ticker(d time.Duration) (ticks <-chan time.Time, stop func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Ticker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Live is a stream with a line of progress at its end while something runs
// (Show). On a terminal the line is repainted in place every Repaint, cut to
// the terminal's width, and anything else written to the stream clears it
// first, so that it never mixes with other lines; elsewhere, it is printed
// as a line of its own every Quiet, and nothing shows for a wait shorter
// than that. Nothing shows before the first Repaint: a short wait does not
// flicker. Live is an io.Writer for everything else the stream carries.
type Live struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	shown bool // a repainted line is on the screen
	clock Clock
}

// NewLive decides, once for the stream, whether it repaints: w is a
// terminal that can move the cursor (not TERM=dumb). Colour is another
// decision, made elsewhere: a line that repaints is plain text.
func NewLive(w io.Writer, getenv func(string) string) *Live {
	return &Live{w: w, tty: IsTerminal(w) && getenv("TERM") != "dumb", clock: realClock{}}
}

// Repaints reports whether the line is repainted in place.
func (l *Live) Repaints() bool { return l.tty }

// Write writes p to the stream, clearing the live line first.
func (l *Live) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	return l.w.Write(p)
}

// clear takes a repainted line off the screen; l.mu is held.
func (l *Live) clear() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// Show keeps line(elapsed) at the end of the stream until stop is called,
// which takes it off a terminal again. line is called on another goroutine.
func (l *Live) Show(line func(elapsed time.Duration) string) (stop func()) {
	every := Quiet
	if l.tty {
		every = Repaint
	}
	start := l.clock.Now()
	ticks, stopTicks := l.clock.Ticker(Repaint)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		// due is when the next line is: a tick a little early (a ticker's
		// jitter) counts, one of the same time again does not
		due := every
		for {
			var now time.Time
			select {
			case <-done:
				return
			case now = <-ticks:
			}
			elapsed := now.Sub(start)
			if elapsed < due-Repaint/4 {
				continue
			}
			for due <= elapsed+Repaint/4 {
				due += every
			}
			l.paint(line(elapsed))
		}
	}()
	return func() {
		stopTicks()
		close(done)
		<-exited
		l.mu.Lock()
		l.clear()
		l.mu.Unlock()
	}
}

// paint shows the line: in place on a terminal, else as a line of its own.
func (l *Live) paint(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tty {
		io.WriteString(l.w, Line(s, 0)+"\n")
		return
	}
	// one column short of the width: a line that wraps cannot be repainted
	io.WriteString(l.w, "\r\x1b[K"+fit(Line(s, 0), Width(l.w)-1))
	l.shown = true
}

// fit cuts s to n characters, the last one an ellipsis when cut.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
