package analysis

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"
)

// WriteJSON writes the report as compact JSON with one file per line: the same
// document encoding/json would produce, without holding it all or indenting it
// after the fact (5,000 files take milliseconds, not tens of them).
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 1024)
	b = append(b, `{"tree":`...)
	b = appendString(b, r.Tree)
	b = append(b, `,"base":`...)
	b = appendString(b, r.Base)
	b = append(b, `,"files":[`...)
	for i := range r.Files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = r.Files[i].appendJSON(b)
		if len(b) > 32<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, "],\n"+`"flagged":[`...)
	for i, p := range r.Flagged {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
	}
	b = append(b, `],"summary":{"files":`...)
	b = strconv.AppendInt(b, int64(r.Summary.Files), 10)
	b = append(b, `,"added":`...)
	b = strconv.AppendInt(b, r.Summary.Added, 10)
	b = append(b, `,"deleted":`...)
	b = strconv.AppendInt(b, r.Summary.Deleted, 10)
	b = append(b, "}}\n"...)
	bw.Write(b)
	return bw.Flush()
}

func (f *FileReport) appendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = appendString(b, f.Path)
	b = append(b, `,"old_path":`...)
	b = appendString(b, f.OldPath)
	b = append(b, `,"status":`...)
	b = appendString(b, string(f.Status))
	b = appendBool(append(b, `,"binary":`...), f.Binary)
	b = appendBool(append(b, `,"submodule":`...), f.Submodule)
	b = appendBool(append(b, `,"mode_changed":`...), f.ModeChanged)
	b = strconv.AppendInt(append(b, `,"invisible":`...), f.Invisible, 10)
	b = strconv.AppendInt(append(b, `,"confusable":`...), f.Confusable, 10)
	b = strconv.AppendInt(append(b, `,"long_lines":`...), f.LongLines, 10)
	b = appendBool(append(b, `,"not_shown":`...), f.NotShown)
	b = strconv.AppendInt(append(b, `,"lines_before":`...), f.LinesBefore, 10)
	b = strconv.AppendInt(append(b, `,"lines_after":`...), f.LinesAfter, 10)
	b = strconv.AppendInt(append(b, `,"lines_added":`...), f.LinesAdded, 10)
	b = strconv.AppendInt(append(b, `,"lines_deleted":`...), f.LinesDeleted, 10)
	b = strconv.AppendFloat(append(b, `,"change_ratio":`...), f.ChangeRatio, 'f', -1, 64)
	b = appendBool(append(b, `,"is_replacement":`...), f.IsReplacement)
	b = appendBool(append(b, `,"requires_review":`...), f.RequiresReview)
	b = appendString(append(b, `,"reason":`...), string(f.Reason))
	b = f.appendSymbols(b)
	b = append(b, `,"converted":[`...)
	for i, c := range f.Converted {
		b = appendString(comma(b, i), c)
	}
	b = append(b, ']')
	if f.PathBase64 != "" {
		b = appendString(append(b, `,"path_base64":`...), f.PathBase64)
	}
	if f.OldPathBase64 != "" {
		b = appendString(append(b, `,"old_path_base64":`...), f.OldPathBase64)
	}
	return append(b, '}')
}

func (f *FileReport) appendSymbols(b []byte) []byte {
	b = append(b, `,"removed_symbols":[`...)
	for i, r := range f.RemovedSymbols {
		b = appendRef(comma(b, i), r.Name, r.Kind)
		b = append(b, '}')
	}
	b = append(b, `],"moved_symbols":[`...)
	for i, m := range f.MovedSymbols {
		b = appendRef(comma(b, i), m.Name, m.Kind)
		b = append(appendString(append(b, `,"to":`...), m.To), '}')
	}
	b = append(b, `],"renamed_symbols":[`...)
	for i, r := range f.RenamedSymbols {
		b = appendRef(comma(b, i), r.Name, r.Kind)
		b = append(appendString(append(b, `,"new_name":`...), r.NewName), '}')
	}
	b = append(b, ']')
	return appendString(append(b, `,"symbols_note":`...), f.SymbolsNote)
}

// appendRef opens a definition's object with its name and kind.
func appendRef(b []byte, name, kind string) []byte {
	b = appendString(append(b, `{"name":`...), name)
	return appendString(append(b, `,"kind":`...), kind)
}

func comma(b []byte, i int) []byte {
	if i > 0 {
		return append(b, ',')
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json does: invalid
// UTF-8 becomes U+FFFD, control characters, <, >, &, U+2028 and U+2029 are escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
