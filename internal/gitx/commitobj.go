package gitx

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A gate's commit, written in process: after the run, git commit-tree is a
// process on the way to the verdict's commit, for an object of a few hundred
// bytes. Who commits is git's to say (git var, asked while the tests run),
// and anything this does not write as git would goes to git.

// Idents are the author and committer git records in a commit made here.
type Idents struct {
	author, committer ident
}

// ident is who ("Name <email>"), and the date ("<seconds> <±hhmm>") when the
// environment fixes it (GIT_AUTHOR_DATE, GIT_COMMITTER_DATE); "" is now, in
// zone, the offset git gave it.
type ident struct {
	who, date, zone string
}

// Idents asks git who the author and the committer of a commit made now
// are: the user's configuration, the environment, git's own fallbacks. Both
// are the same person, asked once, unless the environment (GIT_AUTHOR_*,
// GIT_COMMITTER_*) or the configuration (author.*, committer.*) tells them
// apart.
func (r *Repo) Idents(ctx context.Context) (Idents, error) {
	roles := []string{"COMMITTER"}
	if r.identsMayDiffer() {
		roles = append(roles, "AUTHOR")
	}
	got := make([]ident, len(roles))
	errs := make([]error, len(roles))
	var wg sync.WaitGroup
	for i, role := range roles {
		wg.Go(func() {
			out, err := r.output(ctx, "var", "GIT_"+role+"_IDENT")
			if err == nil {
				got[i], err = parseIdent(string(out), r.getenv("GIT_"+role+"_DATE") != "")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Idents{}, err
	}
	return Idents{committer: got[0], author: got[len(got)-1]}, nil
}

// identsMayDiffer reports whether the author git records may not be the
// committer: a variable or a setting of one's own is set, or may be.
func (r *Repo) identsMayDiffer() bool {
	for _, k := range []string{"NAME", "EMAIL", "DATE"} {
		if r.getenv("GIT_AUTHOR_"+k) != "" || r.getenv("GIT_COMMITTER_"+k) != "" {
			return true
		}
	}
	return r.configMayMention("author", "committer")
}

// parseIdent reads git var's ident: "Name <email> <seconds> <±hhmm>" and a
// newline; the date is kept when fixed, else the commit's own is used.
func parseIdent(s string, fixed bool) (ident, error) {
	s = strings.TrimSuffix(s, "\n")
	gt := strings.LastIndexByte(s, '>')
	if gt < 0 || strings.ContainsAny(s, "\n\x00") || !strings.Contains(s[:gt], " <") {
		return ident{}, fmt.Errorf("git var gave an ident git-tdd does not read: %q", s)
	}
	f := strings.Fields(s[gt+1:])
	if len(f) != 2 || !isDigits(f[0]) || len(f[1]) != 5 || (f[1][0] != '+' && f[1][0] != '-') || !isDigits(f[1][1:]) {
		return ident{}, fmt.Errorf("git var gave an ident git-tdd does not read: %q", s)
	}
	id := ident{who: s[:gt+1], zone: f[1]}
	if fixed {
		id.date = f[0] + " " + f[1]
	}
	return id, nil
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// gitDate is t as git dates a commit made then: seconds, and the local
// offset from UTC.
func gitDate(t time.Time) string {
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%d %c%02d%02d", t.Unix(), sign, off/3600, off/60%60)
}

// commitInProcess writes the commit of tree on parent with message, by ids,
// dated now, as git commit-tree writes an unsigned one. ok is false, having
// written nothing that matters, whenever git must write it: a repository
// whose objects it does not know where to find, a setting that changes the
// object (i18n.commitEncoding) or how it is written, a time zone git would
// read otherwise, or any error.
func (r *Repo) commitInProcess(tree, parent, message string, ids Idents, now time.Time) (string, bool) {
	if !isFullOID(tree) || !isFullOID(parent) || ids.author.who == "" || ids.committer.who == "" {
		return "", false
	}
	// git dates a commit in the zone TZ names, which Go's time may read
	// otherwise (a POSIX rule, "ABC-3", is UTC to Go); git rewrites a message
	// that is not UTF-8 and refuses one with a NUL
	_, zone, _ := strings.Cut(gitDate(now), " ")
	for _, id := range []ident{ids.author, ids.committer} {
		if id.date == "" && id.zone != zone {
			return "", false
		}
	}
	if !utf8.ValidString(message) || strings.ContainsRune(message, 0) {
		return "", false
	}
	if r.odb() == nil || r.getenv("TZ") != os.Getenv("TZ") || r.configMayMention(append([]string{"commitencoding"}, objectSettings...)...) {
		return "", false
	}
	date := func(id ident) string { return cmp.Or(id.date, gitDate(now)) }
	body := "tree " + tree + "\nparent " + parent +
		"\nauthor " + ids.author.who + " " + date(ids.author) +
		"\ncommitter " + ids.committer.who + " " + date(ids.committer) +
		"\n\n" + message
	h := sha1.New()
	h.Write([]byte("commit " + strconv.Itoa(len(body)) + "\x00" + body))
	id := h.Sum(nil)
	db := objectDir{dir: filepath.Join(r.CommonDir, "objects")}
	if err := db.writeLoose("commit", id, []byte(body)); err != nil {
		return "", false
	}
	return hex.EncodeToString(id), true
}

// DraftCommit writes the unsigned commit of the staged tree on parent with
// message, by ids (Idents), as CommitStaged does: in process where it can.
func (r *Repo) DraftCommit(ctx context.Context, parent string, s *Staged, message string, ids Idents) (string, error) {
	if c, ok := r.commitInProcess(s.Tree, parent, message, ids, time.Now()); ok {
		return c, nil
	}
	return r.CommitStaged(ctx, parent, s, message, false)
}
