package gitx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// AppendTrailer adds or replaces trailer ("Key: value") at the end of a commit
// message exactly as `git interpret-trailers --where end --if-exists replace
// --if-missing add` would, for the messages where git's rules leave no doubt:
// plain lines that cannot be comments (whatever core.commentChar is), a patch
// divider or a scissors line, whose last paragraph is either all trailers or
// none. ok is false for any other message, which git must then handle.
func AppendTrailer(msg []byte, trailer string) (out []byte, ok bool) {
	key, _, found := strings.Cut(trailer, ":")
	if !found || !isTrailerKey(key) || strings.ContainsAny(trailer, "\r\n") {
		return nil, false
	}
	text := string(msg)
	if !strings.HasSuffix(text, "\n") || strings.Contains(text, "\r") {
		return nil, false
	}
	body := strings.TrimRight(text, "\n")
	tail := text[len(body)+1:] // the blank lines after the message: git keeps them after the trailers
	lines := strings.Split(body, "\n")
	for _, l := range lines {
		if l != "" && !isPlainStart(l[0]) {
			return nil, false
		}
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		return nil, false
	}
	// the last paragraph, unless it is the first (the subject)
	start := len(lines)
	for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	if start == 0 {
		return []byte(strings.Join(lines, "\n") + "\n\n" + trailer + "\n" + tail), true
	}
	block := lines[start:]
	kind := trailerBlock(block)
	switch kind {
	case "none":
		return []byte(strings.Join(lines, "\n") + "\n\n" + trailer + "\n" + tail), true
	case "mixed":
		return nil, false
	}
	// --if-exists replace removes the last trailer with the key (and its
	// continuation lines), the first one met from the end
	drop, end := -1, len(block)
	for i := len(block) - 1; i >= 0; i-- {
		if isContinuation(block[i]) {
			continue
		}
		if k, _, _ := strings.Cut(block[i], ":"); strings.EqualFold(k, key) {
			drop = i
			break
		}
		end = i
	}
	kept := append([]string{}, lines[:start]...)
	for i, l := range block {
		if drop >= 0 && i >= drop && (i == drop || i < end && isContinuation(l)) {
			continue
		}
		kept = append(kept, l)
	}
	kept = append(kept, trailer)
	return []byte(strings.Join(kept, "\n") + "\n" + tail), true
}

// trailerBlock says whether a paragraph is all trailers ("all"), has none
// ("none"), or some ("mixed", where git's 25 % rule and its list of known
// trailers decide).
func trailerBlock(block []string) string {
	trailers, others := 0, 0
	for i, l := range block {
		switch {
		case isContinuation(l) && i > 0:
		case isCanonical(l):
			trailers++
		case looksLikeTrailer(l):
			trailers++
			others++ // git would rewrite it: leave the block to git
		default:
			others++
		}
	}
	switch {
	case trailers == 0:
		return "none"
	case others == 0 && !isContinuation(block[0]):
		return "all"
	}
	return "mixed"
}

func looksLikeTrailer(l string) bool {
	k, _, found := strings.Cut(l, ":")
	return found && isTrailerKey(strings.TrimRight(k, " \t"))
}

// isCanonical is a trailer line as git writes it back ("Key: value"): git
// rewrites the others of a block it changes.
func isCanonical(l string) bool {
	k, v, found := strings.Cut(l, ": ")
	return found && isTrailerKey(k) && v != "" && v[0] != ' ' && v[0] != '\t' && strings.TrimRight(v, " \t") == v
}

func isContinuation(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

func isTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isPlainStart: a line starting with a letter, digit, space or tab is neither
// a comment (core.commentChar cannot be one of those), a divider nor a scissors
// line.
func isPlainStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ' ' || c == '\t'
}

// AddTrailer adds or replaces trailer (token: value) in a commit message file,
// with git's own trailer rules (comments, templates, existing trailer blocks):
// in process when AppendTrailer is sure of them, which saves a process on
// every commit, else by git interpret-trailers.
func (r *Repo) AddTrailer(ctx context.Context, file, trailer string) error {
	msg, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if out, ok := AppendTrailer(msg, trailer); ok {
		if bytes.Equal(out, msg) {
			return nil
		}
		return os.WriteFile(file, out, 0o644)
	}
	return r.interpretTrailers(ctx, file, trailer)
}

// interpretTrailers adds trailer with git interpret-trailers, with git's
// defaults, as verify reads trailers: no configuration but the comment
// character. A repository's configuration would otherwise run the program
// of every trailer.<token>.command and add what it prints as a trailer of
// the message the human commits and signs, or rename our trailer
// (trailer.<token>.key matches a longer key by its prefix).
func (r *Repo) interpretTrailers(ctx context.Context, file, trailer string) error {
	comment, set, err := r.ConfigValue(ctx, "core.commentChar")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(r.Top, file)
	}
	var args []string
	if set {
		args = []string{"-c", "core.commentChar=" + comment}
	}
	_, err = r.withoutConfig().output(ctx, append(args, "interpret-trailers", "--in-place",
		"--where", "end", "--if-exists", "replace", "--if-missing", "add", "--trailer", trailer, file)...)
	return err
}

// withoutConfig is git outside any repository, with no configuration file:
// for the commands that need none (GIT_DIR names no repository, which a
// command that can run outside one takes for none).
func (r *Repo) withoutConfig() *Repo {
	c := *r
	c.env = slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.HasPrefix(k, "GIT_CONFIG") || slices.Contains(Located, k)
	})
	c.env = append(c.env, "GIT_DIR="+os.DevNull, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	return &c
}
