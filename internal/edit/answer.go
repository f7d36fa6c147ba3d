package edit

import (
	"strings"
)

// Section is one file of an agent's answer: a "### FILE: <path>" line and
// either the whole file in one fence, or edit blocks for it.
type Section struct {
	Path  string
	Whole []byte // the new content, when the answer gives the whole file
	Edits string // the section as edit blocks (for git tdd patch), otherwise
	Line  int    // where the section starts in the answer
}

// SplitAnswer splits an agent's answer into its file sections, in order. Text
// before the first "### FILE:" line is the agent's talk and is left out; a
// "### FILE:" line inside a fence belongs to the fenced content. An answer
// that ends inside a fence is cut off (a Truncated ParseError), as is a
// section that does not parse as a whole file or as edit blocks because its
// end is missing.
func SplitAnswer(answer string) ([]Section, error) {
	answer = strings.ReplaceAll(strings.TrimPrefix(answer, "\ufeff"), "\r\n", "\n")
	lines := strings.Split(answer, "\n")
	var out []Section
	var cur *Section
	var body []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		s, err := section(*cur, body)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	}
	fence := "" // the open fence's marker, "" outside one
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence == "" {
			if m := fileRe().FindStringSubmatch(t); m != nil {
				if err := flush(); err != nil {
					return nil, err
				}
				cur, body = &Section{Path: strings.Trim(m[1], "`*\"' "), Line: i + 1}, nil
				continue
			}
			if m := fenceRe().FindStringSubmatch(l); m != nil {
				fence = m[2]
			}
		} else if strings.HasPrefix(t, fence[:1]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) {
			fence = ""
		}
		if cur != nil {
			body = append(body, l)
		}
	}
	if fence != "" {
		line := len(lines)
		if cur != nil {
			line = cur.Line
		}
		return nil, &ParseError{line, "a fenced block is not closed", true}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &ParseError{1, `no "### FILE: <path>" section in the answer`, false}
	}
	return out, nil
}

// section reads one file's body: edit blocks when it has a FIND: or SEARCH
// marker outside its fences, else one fence with the whole file.
func section(s Section, body []string) (Section, error) {
	text := strings.Join(body, "\n")
	if hasEditMarkers(body) {
		s.Edits = "### FILE: " + s.Path + "\n" + text
		if _, err := ParseBlocks(s.Edits); err != nil {
			return s, err
		}
		return s, nil
	}
	_, content, ok := WholeFile([]byte("### FILE: " + s.Path + "\n" + text))
	if !ok {
		return s, &ParseError{s.Line, "the section of " + s.Path + " is neither one fenced whole file nor FIND/REPLACE blocks", false}
	}
	s.Whole = content
	return s, nil
}

// hasEditMarkers reports whether lines hold an edit block's marker outside fences.
func hasEditMarkers(lines []string) bool {
	fence := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence[:1]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) {
				fence = ""
			}
			continue
		}
		if m := fenceRe().FindStringSubmatch(l); m != nil {
			fence = m[2]
			continue
		}
		if findRe().MatchString(l) || searchRe().MatchString(t) {
			return true
		}
	}
	return false
}
