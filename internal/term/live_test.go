package term

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// fakeClock ticks when the test says: advance moves the time on and delivers
// a tick, which the live line has handled when advance returns (a second
// tick of the same time, which it ignores, is taken only then).
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	period time.Duration
	ticks  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC), ticks: make(chan time.Time)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Ticker(d time.Duration) (<-chan time.Time, func()) {
	c.period = d
	return c.ticks, func() {}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	c.ticks <- now
	c.ticks <- now
}

func waiting(elapsed time.Duration) string {
	return fmt.Sprintf("waiting for the agent: %s", elapsed)
}

// Not on a terminal: a line of its own every Quiet, nothing before; the
// clock ticks at least every 2 s all the same.
func TestLiveQuietWhereNotATerminal(t *testing.T) {
	var out bytes.Buffer
	clock := newFakeClock()
	l := &Live{w: &out, clock: clock}
	stop := l.Show(waiting)
	if clock.period > 2*time.Second {
		t.Errorf("the clock ticks every %s", clock.period)
	}
	for range 25 {
		clock.advance(time.Second)
	}
	io.WriteString(l, "the agent says\n")
	clock.advance(2 * time.Second)
	stop()
	want := "waiting for the agent: 10s\nwaiting for the agent: 20s\nthe agent says\n"
	if out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
	// a short wait shows nothing
	out.Reset()
	stop = l.Show(waiting)
	clock.advance(9 * time.Second)
	stop()
	if out.Len() > 0 {
		t.Errorf("a wait of 9 s wrote %q", out.String())
	}
}

// On a terminal (a real pseudo-terminal): repainted in place every second
// from the first, cut to the terminal's width, escaped; another line clears
// it first, and stop takes it off the screen.
func TestLiveRepaintsOnATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 40}); err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx) // until the terminal is closed (EIO)
		read <- b
	}()
	l := NewLive(tty, func(k string) string { return map[string]string{"TERM": "xterm"}[k] })
	if !l.Repaints() {
		t.Fatal("a pseudo-terminal does not repaint")
	}
	if dumb := NewLive(tty, func(k string) string { return "dumb" }); dumb.Repaints() {
		t.Error("TERM=dumb repaints")
	}
	clock := newFakeClock()
	l.clock = clock
	n := 0
	stop := l.Show(func(elapsed time.Duration) string {
		n++
		if n == 3 {
			return "a long line, longer than the forty columns of this terminal"
		}
		return waiting(elapsed) + "\x1b]52;c;eA==\x07"
	})
	clock.advance(500 * time.Millisecond)
	clock.advance(500 * time.Millisecond)
	clock.advance(time.Second)
	io.WriteString(l, "the agent says\n")
	clock.advance(time.Second)
	stop()
	tty.Close()
	got := strings.ReplaceAll(string(<-read), "\r\n", "\n")
	want := "\r\x1b[Kwaiting for the agent: 1s^[]52;c;eA==^G" +
		"\r\x1b[Kwaiting for the agent: 2s^[]52;c;eA==^G" +
		"\r\x1b[Kthe agent says\n" +
		"\r\x1b[Ka long line, longer than the forty col…" +
		"\r\x1b[K"
	if got != want {
		t.Errorf("the terminal got\n%q\nwant\n%q", got, want)
	}
}
