// Package term decides colour once per stream, asks questions on the controlling terminal, and prints errors.
package term

import (
	"io"
	"os"

	"github.com/fatih/color"
	"golang.org/x/term"
)

// ColorEnabled decides whether to colour w, in the order of DESIGN §3: the --color
// flag, then NO_COLOR, TERM=dumb, CLICOLOR_FORCE, then whether w is a terminal.
func ColorEnabled(flag string, w io.Writer, getenv func(string) string) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" {
		return false
	}
	if getenv("TERM") == "dumb" {
		return false
	}
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return IsTerminal(w)
}

// IsTerminal reports whether w is a terminal device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Width is the width of the terminal behind w, or 80.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols >= 20 {
			return cols
		}
	}
	return 80
}

// Palette colours text for one stream; the zero value colours nothing.
type Palette struct {
	on                                  bool
	red, green, yellow, cyan, bold, dim *color.Color
}

// NewPalette returns a palette that colours when on is true.
func NewPalette(on bool) Palette {
	p := Palette{on: on}
	if !on {
		return p
	}
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		c.EnableColor() // the decision is ours, not fatih/color's global one
		return c
	}
	p.red, p.green, p.yellow = mk(color.FgRed), mk(color.FgGreen), mk(color.FgYellow, color.Bold)
	p.cyan, p.bold, p.dim = mk(color.FgCyan), mk(color.Bold), mk(color.Faint)
	return p
}

// On reports whether the palette colours.
func (p Palette) On() bool { return p.on }

func paint(c *color.Color, s string) string {
	if c == nil {
		return s
	}
	return c.Sprint(s)
}

func (p Palette) Red(s string) string    { return paint(p.red, s) }
func (p Palette) Green(s string) string  { return paint(p.green, s) }
func (p Palette) Yellow(s string) string { return paint(p.yellow, s) }
func (p Palette) Cyan(s string) string   { return paint(p.cyan, s) }
func (p Palette) Bold(s string) string   { return paint(p.bold, s) }
func (p Palette) Dim(s string) string    { return paint(p.dim, s) }
