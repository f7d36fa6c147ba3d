package commitmsg

import "strings"

// FinalTrailers are the trailers of msg's final trailer block, continuation
// lines unfolded, as git's own trailer parser (trailer.c, what
// %(trailers:only,unfold) prints) finds
// them with its default configuration:
//
//   - the message ends at a scissors line, and trailing comment ('#') and
//     blank lines do not count; a patch divider ("---") does not end a
//     commit's message (%(trailers) sets no_divider), unlike a file given to
//     interpret-trailers;
//   - the first paragraph is the subject and never holds trailers;
//   - the block is the last paragraph, when all of its lines are trailers
//     ("Key: value", continuation lines indented), or when at least one is
//     "Signed-off-by: " or "(cherry picked from commit " and at least a
//     quarter of them are trailers; a line of a paragraph that is not a
//     trailer is not one.
//
// A "Key: value" anywhere else in a message is text, not a trailer. The
// configuration git could be given (trailer.separators, trailer.<token>.key,
// core.commentChar) does not change what this finds.
func FinalTrailers(msg string) []Trailer {
	// what %(trailers) is given: the message from its first line that is not blank
	for msg != "" {
		line, rest, _ := strings.Cut(msg, "\n")
		if !isBlankLine(line) {
			break
		}
		msg = rest
	}
	end := len(msg) - ignoredTail(msg)
	buf := msg[:end]
	start := blockStart(buf)
	if start >= end {
		return nil
	}
	// continuation lines join the trailer before them
	var items []string
	joinable := false
	for _, l := range splitLines(buf[start:end]) {
		if joinable && len(l) > 0 && isSpace(l[0]) {
			items[len(items)-1] += l
			continue
		}
		items = append(items, l)
		joinable = separator(l) >= 1
	}
	var out []Trailer
	for _, it := range items {
		if strings.HasPrefix(it, "#") {
			continue
		}
		sep := separator(it)
		if sep < 1 {
			continue
		}
		out = append(out, Trailer{
			Key:   trimSpace(it[:sep]),
			Value: unfold(trimSpace(it[sep+1:])),
			Line:  strings.TrimSuffix(it, "\n"),
		})
	}
	return out
}

// Values are the non-empty values of the trailers keys in msg's final
// trailer block (FinalTrailers), by key as asked for; a key matches without
// case, as git's %(trailers:key=…) matches.
func Values(msg string, keys ...string) map[string][]string {
	out := map[string][]string{}
	for _, t := range FinalTrailers(msg) {
		for _, k := range keys {
			if strings.EqualFold(t.Key, k) && t.Value != "" {
				out[k] = append(out[k], t.Value)
			}
		}
	}
	return out
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// scissors is the line below which git drops a message (wt_status_locate_end).
const scissors = "# ------------------------ >8 ------------------------\n"

// ignoredTail is the length of the end of s that is not message: from the
// scissors line, or the trailing run of comment lines, blank lines and an old
// "Conflicts:" block (ignore_non_trailer).
func ignoredTail(s string) int {
	cutoff := len(s)
	if strings.HasPrefix(s, scissors) {
		cutoff = 0
	} else if i := strings.Index(s, "\n"+scissors); i >= 0 {
		cutoff = i + 1
	}
	boc, bol, conflicts := 0, 0, false
	for bol < cutoff {
		next := len(s)
		if j := strings.IndexByte(s[bol:], '\n'); j >= 0 {
			next = bol + j + 1
		}
		switch {
		case s[bol] == '#' || s[bol] == '\n':
			if boc == 0 {
				boc = bol
			}
		case strings.HasPrefix(s[bol:], "Conflicts:\n"):
			conflicts = true
			if boc == 0 {
				boc = bol
			}
		case conflicts && s[bol] == '\t':
		case boc != 0:
			boc, conflicts = 0, false
		}
		bol = next
	}
	if boc != 0 {
		return len(s) - boc
	}
	return len(s) - cutoff
}

// gitGenerated are the trailers git writes itself (git_generated_prefixes).
var gitGenerated = []string{"Signed-off-by: ", "(cherry picked from commit "}

// blockStart is where the final trailer block of buf starts, len(buf) when it
// has none (find_trailer_block_start).
func blockStart(buf string) int {
	// the first paragraph is the subject
	endOfTitle := 0
	for endOfTitle < len(buf) {
		line := lineAt(buf, endOfTitle)
		if !strings.HasPrefix(line, "#") && isBlankLine(line) {
			break
		}
		endOfTitle = nextLine(buf, endOfTitle)
	}
	onlySpaces, recognized := true, false
	trailers, others, continuations := 0, 0, 0
	for l := lastLine(buf, len(buf)); l >= endOfTitle && l >= 0; l = lastLine(buf, l) {
		line := lineAt(buf, l)
		if strings.HasPrefix(line, "#") {
			others += continuations
			continuations = 0
			continue
		}
		if isBlankLine(line) {
			if onlySpaces {
				continue
			}
			others += continuations
			if recognized && trailers*3 >= others || trailers > 0 && others == 0 {
				return nextLine(buf, l)
			}
			return len(buf)
		}
		onlySpaces = false
		generated := false
		for _, p := range gitGenerated {
			if strings.HasPrefix(line, p) {
				generated = true
			}
		}
		switch {
		case generated:
			trailers++
			continuations = 0
			recognized = true
		case separator(line) >= 1 && !isSpace(line[0]):
			trailers++
			continuations = 0
		case isSpace(line[0]):
			continuations++
		default:
			others++
			others += continuations
			continuations = 0
		}
	}
	return len(buf)
}

// lastLine is the start of the line before position end (last_line); -1 at the start.
func lastLine(buf string, end int) int {
	switch end {
	case 0:
		return -1
	case 1:
		return 0
	}
	if i := strings.LastIndexByte(buf[:end-1], '\n'); i >= 0 {
		return i + 1
	}
	return 0
}

// lineAt is the line that starts at i, without its "\n".
func lineAt(buf string, i int) string {
	line, _, _ := strings.Cut(buf[i:], "\n")
	return line
}

// nextLine is where the line after the one at i starts.
func nextLine(buf string, i int) int {
	if j := strings.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(buf)
}

// separator is the position of the ':' that ends a trailer's key: after
// letters, digits and '-', then only spaces or tabs; -1 when there is none
// (find_separator).
func separator(line string) int {
	spaced := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ':':
			return i
		case !spaced && (isAlnum(c) || c == '-'):
		case i > 0 && (c == ' ' || c == '\t'):
			spaced = true
		default:
			return -1
		}
	}
	return -1
}

// isSpace is git's isspace: space, tab, line feed, carriage return.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isBlankLine(line string) bool {
	for i := 0; i < len(line); i++ {
		if !isSpace(line[i]) {
			return false
		}
	}
	return true
}

func trimSpace(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	for s != "" && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// unfold joins continuation lines with one space (unfold_value).
func unfold(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		c := v[i]
		i++
		if c != '\n' {
			b.WriteByte(c)
			continue
		}
		for i < len(v) && isSpace(v[i]) {
			i++
		}
		b.WriteByte(' ')
	}
	return trimSpace(b.String())
}
