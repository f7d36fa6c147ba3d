package issueflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/analysis"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/review"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Filed is NNN-filed.json: what GitHub assigned, and what exactly was sent.
type Filed struct {
	Number        int         `json:"number"`
	URL           string      `json:"url"`
	Repo          string      `json:"repo,omitempty"`
	Title         string      `json:"title"`
	Labels        []string    `json:"labels"`
	LabelsCreated []string    `json:"labels_created,omitempty"`
	Slug          string      `json:"slug"`
	Brief         string      `json:"brief,omitempty"`
	FiledAt       time.Time   `json:"filed_at,omitzero"`
	ApprovedBy    string      `json:"approved_by"` // "tty": Approve typed on the controlling terminal
	Draft         string      `json:"draft"`       // the audit file filed
	BodySHA256    string      `json:"body_sha256"` // of the body exactly as sent to gh
	Drafts        int         `json:"drafts"`
	Verdicts      int         `json:"verdicts"`
	Found         bool        `json:"found_existing,omitempty"` // an interrupted attempt had filed it; it was not filed again
	Files         []AuditFile `json:"files"`
	// CarriedOver are files an earlier run wrote, which anyone could have
	// changed before this run: git tdd does not vouch for them.
	CarriedOver []string `json:"carried_over,omitempty"`
	// CheckedOnResume: a later run wrote this record, from GitHub's copy of
	// the issue and its audit record.
	CheckedOnResume bool `json:"checked_on_resume,omitempty"`
}

// AuditFile is one audit file and its sha256, as it was when the issue was filed.
type AuditFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// file is N6: labels created when missing, the issue filed with gh, and on a
// failure [R]etry / [E]dit / [A]bort. Only the draft the human approved is
// sent, on gh's standard input; snapshot is the folder as it was then.
func (f *Flow) file(pos Position, draft []byte, snapshot map[string][]byte) error {
	w := f.Human.Writer()
	title, ok := Title(draft)
	if !ok {
		fmt.Fprintf(w, "%s has no title: its first heading must be a line '# <title>'\n", pos.Draft)
		return f.afterFailure(false)
	}
	// the title becomes the subject of the audit commit the human signs
	if err := commitmsg.CheckValue(auditSubject(math.MaxInt32, title, f.slug)); err != nil {
		fmt.Fprintf(w, "%s: the title cannot be a commit's subject: %v\n", pos.Draft, err)
		return f.afterFailure(false)
	}
	labels, body := Labels(draft), WithAuditComment(Body(draft), snapshot)
	for {
		filed, err := f.fileOnce(title, body, labels)
		if err == nil {
			filed.Draft, filed.Drafts, filed.Verdicts = pos.Draft, pos.Drafts, pos.Verdicts
			return f.record(pos, filed, snapshot)
		}
		if f.Ctx.Err() != nil {
			return f.Ctx.Err()
		}
		fmt.Fprintf(w, "N6: filing failed: %v\n", err)
		if err := f.afterFailure(true); !errors.Is(err, errRetry) {
			return err
		}
	}
}

var errRetry = errors.New("retry")

// afterFailure asks what to do when the issue could not be filed: errRetry,
// nil to go back to the verdict gate (Edit), or the abort's error.
func (f *Flow) afterFailure(canRetry bool) error {
	choices := []term.Choice{{Word: "edit", Aliases: []string{"e"}}, {Word: "abort", Aliases: []string{"a"}}}
	question := "[E]dit draft / [A]bort?"
	if canRetry {
		choices = append([]term.Choice{{Word: "retry", Aliases: []string{"r"}}}, choices...)
		question = "[R]etry / [E]dit draft / [A]bort?"
	}
	choice, err := f.Human.Choose(f.Ctx, question, choices)
	if err != nil {
		return f.noAnswer(err, "nothing was filed")
	}
	switch choice {
	case "retry":
		return errRetry
	case "edit":
		return nil // the loop comes back to N5, which opens the editor
	}
	return exitcode.New(exitcode.Refused, "aborted: nothing was filed; the files stay in %s/", term.Path(f.dir)).
		WithHint("git tdd issue resume %s comes back to the verdict gate", f.slug)
}

// fileOnce makes one attempt: missing labels, then the issue, unless the
// user's latest issues hold one with this title and body already (an attempt
// killed, or failed late, after GitHub filed it): it is never filed twice.
func (f *Flow) fileOnce(title string, body []byte, labels []string) (Filed, error) {
	filed := Filed{Title: title, Labels: append([]string{}, labels...), Repo: f.Repository, Slug: f.slug, ApprovedBy: "tty"}
	if len(labels) > 0 {
		have, err := f.GitHub.Labels(f.Ctx)
		if err != nil {
			return filed, err
		}
		for _, l := range MissingLabels(labels, have) {
			if err := f.GitHub.CreateLabel(f.Ctx, l); err != nil {
				return filed, err
			}
			filed.LabelsCreated = append(filed.LabelsCreated, l)
			fmt.Fprintf(f.Err, "N6: created the label %s\n", term.Line(l, 100))
		}
	}
	filed.BodySHA256 = sha(body)
	// always, not only when state.toml marks an interrupted attempt: the
	// mark is a file anyone can edit, and a second issue cannot be taken back
	n, url, found, err := f.GitHub.FindIssue(f.Ctx, title, body)
	if err != nil {
		return filed, fmt.Errorf("looking for the issue an earlier attempt may have filed: %w", err)
	}
	if found {
		fmt.Fprintf(f.Err, "N6: #%d (%s) was filed by an earlier attempt; it is not filed again\n", n, url)
		filed.Number, filed.URL, filed.Found = n, url, true
		return filed, nil
	}
	if err := f.update(func(d *state.Drafting) { d.Filing = true }); err != nil {
		return filed, err
	}
	fmt.Fprintf(f.Err, "N6: filing %q\n", term.Line(title, 100))
	n, url, err = f.GitHub.CreateIssue(f.Ctx, title, body, labels)
	if err != nil {
		return filed, err
	}
	filed.Number, filed.URL = n, url
	return filed, nil
}

// snapshot reads the folder's audit files as a question is asked (at N5: the
// audit trail is the folder as it was then). The files this run wrote are
// its own bytes: one changed behind its back is put back.
func (f *Flow) snapshot() (map[string][]byte, error) {
	names, _, err := f.Tree.ReadDir(f.dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, n := range sortedAudit(names) {
		if out[n], err = f.current(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// record saves what was filed: in state.toml first (the issue exists now,
// whatever happens next), then as NNN-filed.json with the hash of every audit
// file as the human approved it. Files that changed or appeared since are
// reported; the changed ones are put back as they were.
func (f *Flow) record(pos Position, filed Filed, snapshot map[string][]byte) error {
	filed.FiledAt = time.Now().UTC().Truncate(time.Second)
	if d, err := f.Store.Load(); err == nil && d.Issues[f.slug] != nil {
		filed.Brief = d.Issues[f.slug].Brief
	}
	err := f.update(func(d *state.Drafting) {
		// Filing stays set until NNN-filed.json exists: killed in between, the
		// next attempt finds the issue on GitHub instead of filing it again
		d.Number, d.URL = filed.Number, filed.URL
	})
	if err != nil {
		return err
	}
	if err := f.restore(snapshot); err != nil {
		return err
	}
	f.filed = map[string][]byte{}
	for _, n := range sortedAudit(keys(snapshot)) {
		f.filed[n] = snapshot[n]
		filed.Files = append(filed.Files, AuditFile{Name: n, SHA256: sha(snapshot[n])})
		if data, ok := f.wrote[n]; !ok || string(data) != string(snapshot[n]) {
			filed.CarriedOver = append(filed.CarriedOver, n)
		}
	}
	data, err := json.MarshalIndent(filed, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	name, err := f.write(pos.Next, KindFiled, data)
	if err != nil {
		return err
	}
	f.filed[name] = data
	f.filedRecord = &filed
	if err := f.update(func(d *state.Drafting) { d.Filing, d.Node = false, string(NodeFiled) }); err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N6: filed #%d; saved %s\n", filed.Number, name)
	f.audit("filed", fmt.Sprintf("#%d %s", filed.Number, filed.URL))
	return nil
}

// restore makes the folder's audit files what the human approved.
func (f *Flow) restore(snapshot map[string][]byte) error {
	names, _, err := f.Tree.ReadDir(f.dir)
	if err != nil {
		return err
	}
	for _, n := range sortedAudit(names) {
		if _, ok := snapshot[n]; !ok {
			term.Warn(f.Err, "git-tdd", "%s/%s appeared after you approved the filing; it is not part of the audit trail", term.Path(f.dir), n)
		}
	}
	for _, n := range sortedAudit(keys(snapshot)) {
		if f.sameFile(n, snapshot[n]) {
			continue
		}
		term.Warn(f.Err, "git-tdd", "%s/%s changed after you approved the filing; the audit keeps what you approved", term.Path(f.dir), n)
		if err := f.Tree.Write(f.dir+"/"+n, snapshot[n]); err != nil {
			return err
		}
	}
	return nil
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// finish moves the folder to done/<number>-<slug>/ and commits every audit
// file in one commit. In the run that filed the issue, what it recorded is in
// memory; a later run (after a crash, or a commit that had to wait) checks the
// folder against GitHub and asks the human first. Each step can be repeated,
// and the issue is never filed again.
func (f *Flow) finish(pos Position) error {
	rec, files := f.filedRecord, f.filed
	if rec == nil {
		var err error
		if rec, files, err = f.confirmFiled(pos); err != nil {
			return err
		}
	}
	if err := f.checkDirs(); err != nil {
		return err
	}
	done := fmt.Sprintf("%s/%d-%s", DoneDir, rec.Number, f.slug)
	if f.dir != done {
		if err := f.Tree.RenameDir(f.dir, done); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("#%d is filed, but %s could not be moved to %s: %w", rec.Number, f.dir, done, err)).
				WithHint("fix that, then git tdd issue resume %s moves and commits it", f.slug)
		}
		old := f.dir
		f.dir = done
		if err := f.update(func(d *state.Drafting) {}); err != nil {
			return err
		}
		fmt.Fprintf(f.Err, "moved %s to %s\n", term.Path(old), term.Path(done))
	}
	if names, _, err := f.Tree.ReadDir(f.dir); err == nil {
		for _, n := range sortedAudit(names) {
			if _, ok := files[n]; !ok {
				term.Warn(f.Err, "git-tdd", "%s/%s is not part of the audit trail of #%d; it is left out", term.Path(f.dir), n, rec.Number)
			}
		}
	}
	commit, err := f.commitAudit(rec.Number, rec.URL, rec.Title, files)
	if err != nil {
		return err
	}
	if err := f.update(func(d *state.Drafting) {
		d.Commit, d.Node, d.Number, d.URL = commit, string(NodeDone), rec.Number, rec.URL
	}); err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "filed #%d: %s\naudit trail: %s/ (%s), committed as %s\n", rec.Number, rec.URL, term.Path(done),
		term.Count(len(files), "file", "files"), short(commit))
	return nil
}

// filedNumber is the number the folder's record says GitHub gave.
func (f *Flow) filedNumber(pos Position) (int, error) {
	data, err := f.read(pos.Filed)
	if err != nil {
		return 0, err
	}
	var filed Filed
	if err := json.Unmarshal(data, &filed); err != nil || filed.Number <= 0 {
		return 0, exitcode.New(exitcode.Usage, "%s/%s does not say which issue was filed", f.dir, pos.Filed)
	}
	return filed.Number, nil
}

// confirmFiled is the finish of an issue an earlier run filed. The folder's
// record names the issue; GitHub's copy of it holds the sha256 of every audit
// file as the human approved the filing (AuditComment), which nobody without
// the right to edit the issue can change. The files must match it, the
// issue's title and text must be the draft's, no other workflow may have
// committed that issue, and a human must agree. The record is then written
// anew from what was checked.
func (f *Flow) confirmFiled(pos Position) (*Filed, map[string][]byte, error) {
	recordName := term.Path(f.dir + "/" + pos.Filed)
	number, err := f.filedNumber(pos)
	if err != nil {
		return nil, nil, err
	}
	refuse := func(format string, args ...any) (*Filed, map[string][]byte, error) {
		return nil, nil, exitcode.New(exitcode.Refused, format+"; nothing was committed", args...)
	}
	if other := f.issueCommitted(number); other != "" {
		return refuse("%s says #%d was filed, but #%d's audit trail is committed already (%s)", recordName, number, number, other)
	}
	is, found, err := f.GitHub.ViewIssue(f.Ctx, number)
	if err != nil {
		return nil, nil, fmt.Errorf("checking #%d on GitHub: %w", number, err)
	}
	if !found {
		return nil, nil, exitcode.New(exitcode.Refused, "%s says #%d was filed, but GitHub has no such issue; nothing was committed", recordName, number).
			WithHint("remove %s and run git tdd issue resume %s to go back to the verdict gate", recordName, f.slug)
	}
	sums, ok := ParseAuditComment(is.Body)
	if !ok {
		return refuse("GitHub's #%d carries no audit record of git tdd issue, so %s cannot be checked", number, recordName)
	}
	files := map[string][]byte{}
	for n, sum := range sums {
		data, err := f.read(n)
		if err != nil {
			return nil, nil, err
		}
		if sha(data) != sum {
			return refuse("%s/%s is not what it was when #%d was filed (GitHub keeps its sha256)", term.Path(f.dir), n, number)
		}
		files[n] = data
	}
	filedPos, err := PositionOf(keys(files))
	if err != nil || filedPos.Draft == "" {
		return refuse("GitHub's #%d names no draft in its audit record", number)
	}
	draft := files[filedPos.Draft]
	if title, _ := Title(draft); is.Title != title || !SameText(StripAuditComment(is.Body), string(Body(draft))) {
		return refuse("GitHub's #%d is not the draft %s", number, filedPos.Draft)
	}
	rec := &Filed{Number: number, URL: is.URL, Repo: f.Repository, Title: is.Title, Labels: Labels(draft), Slug: f.slug,
		ApprovedBy: "tty", Draft: filedPos.Draft, BodySHA256: sha([]byte(is.Body)), Drafts: filedPos.Drafts,
		Verdicts: filedPos.Verdicts, CheckedOnResume: true}
	w := f.Human.Writer()
	fmt.Fprintf(w, "#%d (%s) was filed by an earlier run; GitHub's record of its audit files matches the folder:\n", number, is.URL)
	for _, n := range sortedAudit(keys(files)) {
		rec.Files = append(rec.Files, AuditFile{Name: n, SHA256: sha(files[n])})
		fmt.Fprintf(w, "  %-18s %s\n", n, SummaryLine(files[n], 80))
	}
	choice, err := f.Human.Choose(f.Ctx, "[C]ommit the audit trail / [A]bort?", []term.Choice{
		{Word: "commit", Aliases: []string{"c"}}, {Word: "abort", Aliases: []string{"a"}}})
	if err != nil {
		return nil, nil, f.noAnswer(err, "nothing was committed")
	}
	if choice != "commit" {
		return nil, nil, exitcode.New(exitcode.Refused, "aborted: nothing was committed; the files stay in %s/", term.Path(f.dir))
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	data = append(data, '\n')
	if err := f.Tree.Write(f.dir+"/"+pos.Filed, data); err != nil {
		return nil, nil, err
	}
	files[pos.Filed] = data
	return rec, files, nil
}

// issueCommitted names another workflow whose committed audit trail is for
// issue n, or "".
func (f *Flow) issueCommitted(n int) string {
	if st, err := f.Store.Load(); err == nil {
		for _, d := range st.Issues {
			if d.Slug != f.slug && d.Number == n && d.Done() {
				return d.Dir
			}
		}
	}
	names, _, _ := f.Tree.ReadDir(DoneDir)
	for _, name := range names {
		if num, slug, ok := strings.Cut(name, "-"); ok && num == strconv.Itoa(n) && slug != f.slug {
			return DoneDir + "/" + name
		}
	}
	return ""
}

// commitAudit commits the audit files (and the removal of any the active
// folder had in HEAD) on top of HEAD in one commit, leaving every other staged
// change as it is. It is recorded as approved (the human approved filing at
// N5) so that git diffgate --strict lets HEAD move, and signed like the user's
// commits. A HEAD that moves meanwhile (a parallel workflow's commit) is
// retried on the new HEAD.
func (f *Flow) commitAudit(number int, url, title string, files map[string][]byte) (string, error) {
	if op := f.Repo.InProgress(); op != "" {
		return "", exitcode.New(exitcode.Usage, "#%d is filed, but a %s is in progress in %s, so the audit files were not committed", number, op, f.Repo.Top).
			WithHint("finish it, then git tdd issue resume %s commits them", f.slug)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	paths := make([]string, len(names))
	contents := make([][]byte, len(names))
	for i, n := range names {
		paths[i], contents[i] = f.dir+"/"+n, files[n]
	}
	blobs, err := f.Repo.WriteBlobs(f.Ctx, contents)
	if err != nil {
		return "", err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		commit, entries, err := f.commitOnce(number, url, title, paths, blobs)
		if errors.Is(err, gitx.ErrHeadMoved) {
			lastErr = err
			continue
		}
		if err != nil {
			return "", err
		}
		if err := f.Repo.SetIndexEntries(f.Ctx, entries); err != nil {
			term.Warn(f.Err, "git-tdd", "committed %s, but the index could not be updated: %v; run git reset -q -- %s", short(commit), err, f.dir)
		}
		f.audit("committed", commit)
		return commit, nil
	}
	return "", lastErr
}

func (f *Flow) commitOnce(number int, url, title string, paths, blobs []string) (string, []gitx.RawEntry, error) {
	head, ok, err := f.Repo.Head(f.Ctx)
	if err != nil {
		return "", nil, err
	}
	var base string
	if ok {
		base, err = f.Repo.TreeOf(f.Ctx, head)
	} else {
		head = ""
		base, err = f.Repo.EmptyTree(f.Ctx)
	}
	if err != nil {
		return "", nil, err
	}
	// the active folder is gone from disk: if HEAD had files of it, they go too
	old, err := f.Repo.TreeFiles(f.Ctx, base, ActiveDir+"/"+f.slug)
	if err != nil {
		return "", nil, err
	}
	var entries []gitx.RawEntry
	for _, e := range old {
		entries = append(entries, gitx.RawEntry{OldOID: e.OID, Path: e.Path})
	}
	for i, p := range paths {
		entries = append(entries, gitx.RawEntry{NewMode: gitx.ModeRegular, NewOID: blobs[i], Path: p})
	}
	tree, err := f.Repo.OverlayTree(f.Ctx, base, entries)
	if err != nil {
		return "", nil, err
	}
	subject := auditSubject(number, title, f.slug)
	if err := commitmsg.CheckValue(url); err != nil {
		return "", nil, fmt.Errorf("the issue's URL cannot be written into the audit commit: %w", err)
	}
	body := fmt.Sprintf("The brief, drafts, feedback and verdicts of %s, filed by git tdd issue\nafter a human approved it on the terminal.", url)
	if _, err := commitmsg.Build(subject, body); err != nil {
		return "", nil, err
	}
	a, err := review.Record(f.Ctx, f.Store, review.Target{Base: head, BaseCommit: head, Tree: tree}, &analysis.Report{},
		fmt.Sprintf("issue #%d audit", number), "tdd issue")
	if err != nil {
		return "", nil, err
	}
	msg, err := commitmsg.Build(subject, body, commitmsg.ApprovalTrailer(a.Time, a.Tree))
	if err != nil {
		return "", nil, err
	}
	commit, err := f.Repo.CommitOnHead(f.Ctx, head, tree, msg, f.Sign)
	if err != nil {
		return "", nil, err
	}
	f.Store.Update(f.Ctx, func(st *state.State) error {
		st.Consume(commit, tree, []string{head})
		return nil
	})
	return commit, entries, nil
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// audit appends to audit.jsonl.
func (f *Flow) audit(outcome, detail string) {
	f.Store.Audit(f.Ctx, state.AuditEntry{Command: "tdd issue", Issue: f.slug, Path: f.dir, ApprovedBy: "tty",
		Outcome: outcome, Detail: state.CleanPath(detail)})
}

// auditSubject is the subject of the audit commit of issue number.
func auditSubject(number int, title, slug string) string {
	return fmt.Sprintf("Audit trail of issue #%d: %s", number, oneLine(title, slug))
}

// oneLine is a title fit for a commit's subject.
func oneLine(title, fallback string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return fallback
	}
	return title
}
