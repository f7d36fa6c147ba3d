// Package manpage renders a command's kong model as a troff man page, so that
// git <cmd> --help (which runs man git-<cmd>) lists the same commands and flags as -h.
package manpage

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// Page is one man page: the model gives COMMANDS and OPTIONS, the rest is prose.
type Page struct {
	Name        string // git-diffgate
	Usage       string // git diffgate
	Title       string // the NAME line's description
	Version     string
	Synopsis    []string
	Description string
	Model       *kong.Application
	Sections    []Section // after OPTIONS: EXIT STATUS, FILES, ENVIRONMENT, EXAMPLES, SEE ALSO …
}

// Section is prose in a small markup: paragraphs split by blank lines, lines
// indented by two spaces kept as they are, lines starting "- " as bullets.
type Section struct {
	Title string
	Body  string
}

// Render writes the page.
func Render(w io.Writer, p Page) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, ".TH %s 1 \"\" \"%s\" \"Git Manual\"\n", strings.ToUpper(p.Name), esc(p.Version))
	fmt.Fprintf(b, ".SH NAME\n%s \\- %s\n", p.Name, esc(p.Title))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, s := range p.Synopsis {
		fmt.Fprintf(b, "%s\n", esc(s))
	}
	b.WriteString(".fi\n")
	section(b, Section{"DESCRIPTION", p.Description})
	commands(b, p)
	b.WriteString(".SH OPTIONS\nThese options go before or after the command.\n")
	flags(b, p.Model.Node.Flags)
	for _, s := range p.Sections {
		section(b, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func commands(b *strings.Builder, p Page) {
	var visible []*kong.Node
	for _, c := range p.Model.Node.Children {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	if len(visible) == 0 {
		return
	}
	b.WriteString(".SH COMMANDS\n")
	for _, c := range visible {
		line := p.Usage + " " + c.Name
		if c.Parent != nil && c.Parent.DefaultCmd == c {
			line = p.Usage + " [" + c.Name + "]"
		}
		for _, a := range c.Positional {
			if a.Required {
				line += " " + strings.ToUpper(a.Name)
			} else {
				line += " [" + strings.ToUpper(a.Name) + "]"
			}
		}
		fmt.Fprintf(b, ".SS \"%s\"\n%s\n", esc(line), esc(sentence(c.Help)))
		for _, child := range c.Children {
			if !child.Hidden {
				fmt.Fprintf(b, ".TP\n.B %s\n%s\n", esc(p.Usage+" "+c.Name+" "+child.Name), esc(sentence(child.Help)))
			}
		}
		flags(b, c.Flags)
	}
}

func flags(b *strings.Builder, fs []*kong.Flag) {
	for _, f := range fs {
		if f.Hidden {
			continue
		}
		name := "\\-\\-" + esc(f.Name)
		if f.Short != 0 {
			name = "\\-" + string(f.Short) + ", " + name
		}
		if ph := f.FormatPlaceHolder(); !f.IsBool() && ph != "" {
			name += "=\\fI" + esc(ph) + "\\fR"
		}
		fmt.Fprintf(b, ".TP\n\\fB%s\\fR\n%s\n", name, esc(sentence(f.Help)))
	}
}

func section(b *strings.Builder, s Section) {
	fmt.Fprintf(b, ".SH %s\n", s.Title)
	for _, para := range strings.Split(strings.Trim(s.Body, "\n"), "\n\n") {
		lines := strings.Split(para, "\n")
		switch {
		case strings.HasPrefix(lines[0], "  "):
			b.WriteString(".PP\n.nf\n.RS 4\n")
			for _, l := range lines {
				fmt.Fprintf(b, "%s\n", esc(strings.TrimPrefix(l, "  ")))
			}
			b.WriteString(".RE\n.fi\n")
		case strings.HasPrefix(lines[0], "- "):
			for _, item := range strings.Split("\n"+para, "\n- ")[1:] {
				fmt.Fprintf(b, ".IP \\(bu 2\n%s\n", esc(strings.Join(strings.Fields(item), " ")))
			}
		default:
			fmt.Fprintf(b, ".PP\n%s\n", esc(strings.Join(strings.Fields(para), " ")))
		}
	}
}

func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ")") {
		s += "."
	}
	return s
}

// esc makes text safe for troff: backslashes, hyphens, characters beyond ASCII
// (as \[uXXXX]), and a leading dot or quote.
func esc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var b strings.Builder
	for _, r := range s {
		if r > 127 {
			fmt.Fprintf(&b, `\[u%04X]`, r)
			continue
		}
		b.WriteRune(r)
	}
	s = b.String()
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// Table turns a titled, indented table (like the exit codes of -h) into a
// preformatted section body.
func Table(t string) string {
	_, rows, _ := strings.Cut(t, "\n")
	return rows
}
