package issueflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/term"
)

// draft is N2: the drafter writes a draft from the brief and the template, or
// from the human's feedback, the current draft and the template. What goes to
// the drafter is what this run wrote or the human sent: a brief or feedback
// found on resume is shown to the human first.
func (f *Flow) draft(pos Position) error {
	if pos.Drafts >= f.Cfg.MaxIterations {
		return exitcode.New(exitcode.Escalate, "%s has had %s, [issue] max_iterations; no more are asked for",
			f.slug, term.Count(pos.Drafts, "draft", "drafts")).
			WithHint("file the last draft by hand, or raise max_iterations in .git-tdd.toml, commit it and run git tdd issue resume %s", f.slug)
	}
	input, what := FileName(1, KindBrief), "the brief"
	if pos.Draft != "" && pos.Feedback != "" {
		input, what = pos.Feedback, "this feedback"
	}
	text, err := f.vouch(input, what)
	if err != nil {
		return err
	}
	prompt := prompts.IssueDraft(string(text), f.Template)
	if input == pos.Feedback {
		current, err := f.vouch(pos.Draft, "the current draft")
		if err != nil {
			return err
		}
		prompt = prompts.IssueRedraft(string(text), string(current), f.Template)
	}
	fmt.Fprintf(f.Err, "N2: asking the drafter for draft #%d\n", pos.Drafts+1)
	name, err := f.consult("drafter", f.Drafter, prompt, pos.Next, KindDraft)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N2: draft #%d saved as %s\n", pos.Drafts+1, name)
	return nil
}

// vouch returns an audit file that is about to go to a model: as this run
// wrote it, or, when an earlier run did (anyone could have written it since),
// after the human has read it and sent it.
func (f *Flow) vouch(name, what string) ([]byte, error) {
	if _, ok := f.wrote[name]; ok {
		return f.current(name)
	}
	w := f.Human.Writer()
	for {
		data, err := f.read(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "%s was written before this run, so git tdd cannot tell who wrote it:\n", name)
		for _, l := range firstLines(data, 20) {
			fmt.Fprintf(w, "  | %s\n", l)
		}
		choice, err := f.Human.Choose(f.Ctx, "[S]end "+what+" to the drafter / [E]dit / [M]anual?", []term.Choice{
			{Word: "send", Aliases: []string{"s"}}, {Word: "edit", Aliases: []string{"e"}}, {Word: "manual", Aliases: []string{"m"}}})
		if err != nil {
			return nil, f.noAnswer(err, "nothing was sent")
		}
		switch choice {
		case "manual":
			return nil, errStopped
		case "edit":
			if _, err := f.edit(name); err != nil {
				return nil, err
			}
			continue
		}
		if !f.sameFile(name, data) {
			fmt.Fprintf(w, "%s changed while you decided: showing it again\n", name)
			continue
		}
		f.wrote[name] = data
		return data, nil
	}
}

// current is an audit file as git tdd knows it: for one this run wrote, its
// bytes in memory, put back (and the human told) if the file was changed
// since; for one an earlier run wrote, the file.
func (f *Flow) current(name string) ([]byte, error) {
	data, ok := f.wrote[name]
	if !ok {
		return f.read(name)
	}
	if !f.sameFile(name, data) {
		term.Warn(f.Human.Writer(), "git-tdd", "%s changed since git tdd saved it; git tdd's version is back in place", name)
		if err := f.Tree.Write(f.dir+"/"+name, data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// firstLines are up to n lines of text, safe for a terminal.
func firstLines(text []byte, n int) []string {
	ls := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	more := len(ls) - n
	if more > 0 {
		ls = ls[:n]
	}
	for i, l := range ls {
		ls[i] = term.Line(l, 120)
	}
	if more > 0 {
		ls = append(ls, fmt.Sprintf("… (%s more)", term.Count(more, "line", "lines")))
	}
	return ls
}

// consult asks the drafter or the reviewer and saves the answer as the audit
// file n. One that fails or answers nothing saves nothing (exit 4), and resume
// asks again from the same place.
func (f *Flow) consult(who string, m Model, prompt string, n int, kind Kind) (string, error) {
	answer, err := m(f.Ctx, prompt)
	if err == nil && len(CleanAnswer(answer)) == 0 {
		err = errors.New("it answered nothing")
	}
	if f.Ctx.Err() != nil {
		return "", f.Ctx.Err()
	}
	if err != nil {
		return "", exitcode.With(exitcode.Escalate, fmt.Errorf("the %s failed: %w; nothing was saved", who, err)).
			WithHint("git tdd issue resume %s asks again", f.slug)
	}
	return f.write(n, kind, CleanAnswer(answer))
}

// draftGate is N3: the human reads and edits the draft, then sends it to the
// reviewer, asks for a revision, or stops. Only the draft as it is when they
// decide goes on.
func (f *Flow) draftGate(pos Position) error {
	for {
		edited, err := f.edit(pos.Draft)
		if err != nil {
			return err
		}
		draft := edited[pos.Draft]
		w := f.Human.Writer()
		f.showDraft(pos, draft)
		f.showEarlier()
		fmt.Fprintf(w, "Iteration %d | Draft #%d\n", pos.Drafts, pos.Drafts)
		choice, _, again, err := f.ask("[S]end to the reviewer / [R]evise / [M]anual?", "send", "the draft is kept")
		if err != nil {
			return err
		}
		if again {
			continue
		}
		switch choice {
		case "manual":
			return errStopped
		case "revise":
			return f.feedback(pos, nil)
		}
		if len(strings.TrimSpace(string(draft))) == 0 {
			fmt.Fprintf(w, "%s is empty: there is nothing to send\n", pos.Draft)
			continue
		}
		return f.review(pos, draft)
	}
}

// review is N4: the reviewer gets the committed review prompt and the draft
// the human sent.
func (f *Flow) review(pos Position, draft []byte) error {
	fmt.Fprintf(f.Err, "N4: asking the reviewer about draft #%d\n", pos.Drafts)
	name, err := f.consult("reviewer", f.Reviewer, prompts.IssueReview(f.ReviewPrompt, string(draft)), pos.Next, KindVerdict)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N4: verdict #%d saved as %s\n", pos.Verdicts+1, name)
	return nil
}

// verdictGate is N5: the human reads the draft and the verdict (and may edit
// both: a verdict is sanitised before any of it reaches the drafter), then
// approves filing, asks for a revision, or stops.
func (f *Flow) verdictGate(pos Position) error {
	for {
		edited, err := f.edit(pos.Draft, pos.Verdict)
		if err != nil {
			return err
		}
		draft, verdict := edited[pos.Draft], edited[pos.Verdict]
		w := f.Human.Writer()
		f.showDraft(pos, draft)
		fmt.Fprintf(w, "verdict #%d  %s\n  %s\n", pos.Verdicts, term.Path(f.dir+"/"+pos.Verdict), SummaryLine(verdict, 100))
		f.showEarlier()
		fmt.Fprintf(w, "files in: %s\n", term.Line(f.Repository, 100))
		fmt.Fprintf(w, "Iteration %d | Draft #%d | Verdict #%d\n", pos.Drafts, pos.Drafts, pos.Verdicts)
		choice, seen, again, err := f.ask("[A]pprove and file / [R]evise / [M]anual?", "approve", "the draft and the verdict are kept")
		if err != nil {
			return err
		}
		if again {
			continue
		}
		switch choice {
		case "manual":
			return errStopped
		case "revise":
			return f.feedback(pos, verdict)
		}
		return f.file(pos, draft, seen)
	}
}

// unchanged reports whether the folder still holds exactly what it held when
// the question was asked, and otherwise says so: the gate is shown again.
// ask puts a gate's question: first, revise or manual. The audit folder is
// read before the question and again after the answer: again is true when a
// file changed while the human decided, and the gate must show it again.
func (f *Flow) ask(question, first, kept string) (choice string, seen map[string][]byte, again bool, err error) {
	if seen, err = f.snapshot(); err != nil {
		return "", nil, false, err
	}
	choice, err = f.Human.Choose(f.Ctx, question, []term.Choice{
		{Word: first, Aliases: []string{first[:1]}}, {Word: "revise", Aliases: []string{"r"}}, {Word: "manual", Aliases: []string{"m"}}})
	if err != nil {
		return "", nil, false, f.noAnswer(err, kept)
	}
	return choice, seen, !f.unchanged(seen), nil
}

func (f *Flow) unchanged(seen map[string][]byte) bool {
	now, err := f.snapshot()
	if err == nil && len(now) == len(seen) {
		same := true
		for n, data := range seen {
			same = same && bytes.Equal(now[n], data)
		}
		if same {
			return true
		}
	}
	fmt.Fprintln(f.Human.Writer(), "the folder changed while you decided: showing it again")
	return false
}

// feedback is Revise at N3 or N5: what the human types (or writes in the
// editor) is saved as NNN-feedback.txt, with the verdict as they left it, and
// the drafter is asked again.
func (f *Flow) feedback(pos Position, verdict []byte) error {
	w := f.Human.Writer()
	question := "Enter feedback for the drafter (or 'edit' to write it in your editor):"
	if verdict != nil {
		question = "Enter feedback for the drafter; the verdict as you left it goes with it (or 'edit' to write it in your editor):"
	}
	var text string
	for i := 0; ; i++ {
		if i == 3 {
			return f.noAnswer(term.ErrNoAnswer, "the draft is kept")
		}
		line, err := f.Human.Line(f.Ctx, question)
		if err != nil {
			return f.noAnswer(err, "the draft is kept")
		}
		if strings.EqualFold(line, "edit") {
			written, err := f.editor(map[string][]byte{"feedback.txt": nil}, "feedback.txt")
			if err != nil {
				return err
			}
			line = string(written["feedback.txt"])
		}
		if text = strings.TrimSpace(line); text != "" {
			break
		}
		fmt.Fprintln(w, "The feedback is empty.")
	}
	content := text + "\n"
	if verdict != nil {
		content += "\n## The reviewer's verdict, as the human left it\n\n" + string(verdict)
	}
	name, err := f.write(pos.Next, KindFeedback, []byte(content))
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N3: feedback saved as %s\n", name)
	return nil
}

// edit opens audit files in the editor and returns them as the human left
// them, saved back into the folder. The editor works on private copies, so it
// never follows a symlink planted in the folder, and a change made to a file
// by something else while the editor is open is reported and not kept.
func (f *Flow) edit(names ...string) (map[string][]byte, error) {
	before := map[string][]byte{}
	for _, n := range names {
		data, err := f.current(n)
		if err != nil {
			return nil, err
		}
		before[n] = data
	}
	after, err := f.editor(before, names...)
	if err != nil {
		return nil, err
	}
	f.showChanges(names, before, after)
	for _, n := range names {
		now, err := f.read(n)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(now, before[n]) {
			term.Warn(f.Human.Writer(), "git-tdd", "%s was changed by something else while you edited it; your version is kept", n)
		}
		if _, vouched := f.wrote[n]; vouched {
			err = f.save(n, after[n]) // the human's edit of what this run wrote
		} else if !bytes.Equal(now, after[n]) {
			err = f.Tree.Write(f.dir+"/"+n, after[n])
		}
		if err != nil {
			return nil, err
		}
	}
	return after, nil
}

// maxShownDiff bounds the diff of an editor's changes shown at a gate.
const maxShownDiff = 60

// showChanges prints what changed in the files while the editor was open: the
// human's edits, and anything else that wrote to the copies meanwhile, so that
// nothing reaches the question unseen.
func (f *Flow) showChanges(names []string, before, after map[string][]byte) {
	w := f.Human.Writer()
	for _, n := range names {
		if bytes.Equal(before[n], after[n]) {
			continue
		}
		diff, err := f.Repo.DiffTexts(f.Ctx, n, before[n], after[n])
		if err != nil {
			fmt.Fprintf(w, "%s changed in the editor\n", n)
			continue
		}
		fmt.Fprintf(w, "changes to %s while the editor was open:\n", n)
		ls := strings.Split(strings.TrimRight(diff, "\n"), "\n")
		for i, l := range ls {
			if i == maxShownDiff {
				fmt.Fprintf(w, "  … (%s more)\n", term.Count(len(ls)-i, "line", "lines"))
				break
			}
			fmt.Fprintf(w, "  %s\n", term.Line(l, 160))
		}
	}
}

// editor runs the editor on private copies of files (named as in the folder,
// in a directory only this user can read) and returns what they hold after.
func (f *Flow) editor(files map[string][]byte, order ...string) (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "git-tdd-issue-"+f.slug+"-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	paths := make([]string, len(order))
	for i, n := range order {
		paths[i] = filepath.Join(dir, n)
		if err := os.WriteFile(paths[i], files[n], 0o600); err != nil {
			return nil, err
		}
	}
	if err := f.Editor.Edit(f.Ctx, paths...); err != nil {
		if f.Ctx.Err() != nil {
			return nil, f.Ctx.Err()
		}
		return nil, exitcode.With(exitcode.Usage, err).WithHint("fix the editor (git var GIT_EDITOR), then git tdd issue resume %s", f.slug)
	}
	out := map[string][]byte{}
	for i, n := range order {
		data, err := readLimited(paths[i])
		if err != nil {
			return nil, err
		}
		out[n] = data
	}
	return out, nil
}

// readLimited reads a regular file of at most MaxFile bytes.
func readLimited(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file after the editor", path)
	}
	if fi.Size() > MaxFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxFile)
	}
	return os.ReadFile(path)
}

// showDraft prints what the human decides on: which draft, its title and labels.
func (f *Flow) showDraft(pos Position, draft []byte) {
	w := f.Human.Writer()
	title, ok := Title(draft)
	if !ok {
		title = "(none: a line '# <title>' is needed to file it)"
	}
	labels := strings.Join(Labels(draft), ", ")
	if labels == "" {
		labels = "(none)"
	}
	fmt.Fprintf(w, "draft #%d  %s  (%s)\n  title:  %s\n  labels: %s\n", pos.Drafts, term.Path(f.dir+"/"+pos.Draft),
		term.Count(strings.Count(string(draft), "\n"), "line", "lines"), term.Line(title, 100), term.Line(labels, 100))
}

// showEarlier names the audit files this run did not write: after a resume,
// anything with a shell could have written them, the verdict included.
func (f *Flow) showEarlier() {
	if earlier := f.earlier(); len(earlier) > 0 {
		fmt.Fprintf(f.Human.Writer(), "written before this run, so git tdd cannot tell who wrote them: %s\n", strings.Join(earlier, ", "))
	}
}

// earlier lists the folder's audit files that this run did not write (or
// have the human send) as they are now.
func (f *Flow) earlier() []string {
	names, _, _ := f.Tree.ReadDir(f.dir)
	var out []string
	for _, n := range sortedAudit(names) {
		if data, ok := f.wrote[n]; !ok || !f.sameFile(n, data) {
			out = append(out, n)
		}
	}
	return out
}
