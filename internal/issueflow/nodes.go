package issueflow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/prompts"
	"github.com/git-tdd/git-tdd/internal/term"
)

// draft is N2: the drafter writes a draft from the brief and the template, or
// from the human's feedback, the current draft and the template.
func (f *Flow) draft(pos Position) error {
	if pos.Drafts >= f.Cfg.MaxIterations {
		return exitcode.New(exitcode.Escalate, "%s has had %s, [issue] max_iterations; no more are asked for",
			f.slug, term.Count(pos.Drafts, "draft", "drafts")).
			WithHint("file the last draft by hand, or raise max_iterations in .git-tdd.toml, commit it and run git tdd issue resume %s", f.slug)
	}
	var prompt string
	if pos.Draft != "" && pos.Feedback != "" {
		feedback, err := f.read(pos.Feedback)
		if err != nil {
			return err
		}
		current, err := f.read(pos.Draft)
		if err != nil {
			return err
		}
		prompt = prompts.IssueRedraft(string(feedback), string(current), f.Template)
	} else {
		brief, err := f.read(FileName(1, KindBrief))
		if err != nil {
			return err
		}
		prompt = prompts.IssueDraft(string(brief), f.Template)
	}
	fmt.Fprintf(f.Err, "N2: asking the drafter for draft #%d\n", pos.Drafts+1)
	name, err := f.consult("drafter", f.Drafter, prompt, pos.Next, KindDraft)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N2: draft #%d saved as %s\n", pos.Drafts+1, name)
	return nil
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
		if err := f.edit(pos.Draft); err != nil {
			return err
		}
		draft, err := f.read(pos.Draft)
		if err != nil {
			return err
		}
		w := f.Human.Writer()
		f.showDraft(pos, draft)
		fmt.Fprintf(w, "Iteration %d | Draft #%d\n", pos.Drafts, pos.Drafts)
		choice, err := f.Human.Choose(f.Ctx, "[S]end to the reviewer / [R]evise / [M]anual?", []term.Choice{
			{Word: "send", Aliases: []string{"s"}}, {Word: "revise", Aliases: []string{"r"}}, {Word: "manual", Aliases: []string{"m"}}})
		if err != nil {
			return f.noAnswer(err, "the draft is kept")
		}
		if !f.sameFile(pos.Draft, draft) {
			fmt.Fprintf(w, "%s changed after you closed the editor: opening it again\n", pos.Draft)
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
		if err := f.edit(pos.Draft, pos.Verdict); err != nil {
			return err
		}
		draft, err := f.read(pos.Draft)
		if err != nil {
			return err
		}
		verdict, err := f.read(pos.Verdict)
		if err != nil {
			return err
		}
		w := f.Human.Writer()
		f.showDraft(pos, draft)
		fmt.Fprintf(w, "verdict #%d  %s\n  %s\n", pos.Verdicts, term.Path(f.dir+"/"+pos.Verdict), SummaryLine(verdict, 100))
		fmt.Fprintf(w, "Iteration %d | Draft #%d | Verdict #%d\n", pos.Drafts, pos.Drafts, pos.Verdicts)
		choice, err := f.Human.Choose(f.Ctx, "[A]pprove and file / [R]evise / [M]anual?", []term.Choice{
			{Word: "approve", Aliases: []string{"a"}}, {Word: "revise", Aliases: []string{"r"}}, {Word: "manual", Aliases: []string{"m"}}})
		if err != nil {
			return f.noAnswer(err, "the draft and the verdict are kept")
		}
		if !f.sameFile(pos.Draft, draft) || !f.sameFile(pos.Verdict, verdict) {
			fmt.Fprintf(w, "the draft or the verdict changed after you closed the editor: opening them again\n")
			continue
		}
		switch choice {
		case "manual":
			return errStopped
		case "revise":
			return f.feedback(pos, verdict)
		}
		return f.file(pos, draft)
	}
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
			if line, err = f.editFeedback(); err != nil {
				return err
			}
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

// feedbackDraft is where feedback is written in the editor; it only becomes
// an audit file, under its number, once the human has written something.
const feedbackDraft = "feedback-in-progress.txt"

func (f *Flow) editFeedback() (string, error) {
	rel := f.dir + "/" + feedbackDraft
	if err := f.Tree.Write(rel, nil); err != nil {
		return "", err
	}
	defer f.Tree.Remove(rel)
	if err := f.edit(feedbackDraft); err != nil {
		return "", err
	}
	data, err := f.read(feedbackDraft)
	return string(data), err
}

// edit opens audit files in the editor.
func (f *Flow) edit(names ...string) error {
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = f.abs(n)
	}
	if err := f.Editor.Edit(f.Ctx, files...); err != nil {
		if f.Ctx.Err() != nil {
			return f.Ctx.Err()
		}
		return exitcode.With(exitcode.Usage, err).WithHint("fix the editor (git var GIT_EDITOR), then git tdd issue resume %s", f.slug)
	}
	return nil
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
