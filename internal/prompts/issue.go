package prompts

import "strings"

// IssueTemplate is the issue template git tdd issue gives the drafter when
// [issue] template is not committed.
const IssueTemplate = `# <Title: the change, in a few words>

**Labels:** <comma-separated, e.g. enhancement>

## Problem
<What is wrong or missing, and for whom.>

## Proposal
<What to build or change.>

## Acceptance criteria
- [ ] <A behaviour a test can check.>

## Out of scope
<What this issue does not cover.>

## Test plan
<How it will be tested.>
`

const issueAnswer = `Answer with the issue only, in Markdown: its first line is "# " and the title, and one line is "**Labels:** " and the labels, comma-separated. No preamble, and no code fence around the answer.
`

// IssueDraft is N2's prompt for a first draft (seed 004): the brief and the template.
func IssueDraft(brief, template string) string {
	var b strings.Builder
	b.WriteString("Draft a GitHub issue from the brief below, following the template.\n\n")
	b.WriteString(issueAnswer)
	section(&b, "Brief", brief)
	section(&b, "Template", template)
	return b.String()
}

// IssueRedraft is N2's prompt after a human asked for changes: their feedback,
// the current draft and the template.
func IssueRedraft(feedback, draft, template string) string {
	var b strings.Builder
	b.WriteString("Revise the draft GitHub issue below as the feedback asks, following the template.\n\n")
	b.WriteString(issueAnswer)
	section(&b, "Feedback", feedback)
	section(&b, "Current draft", draft)
	section(&b, "Template", template)
	return b.String()
}

// IssueReview is N4's prompt: the repository's fixed review prompt, as
// committed, then the draft a human sent.
func IssueReview(reviewPrompt, draft string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(reviewPrompt, "\n"))
	b.WriteString("\n")
	section(&b, "Draft issue to review", draft)
	return b.String()
}

func section(b *strings.Builder, title, text string) {
	b.WriteString("\n## " + title + "\n\n" + fenced(text) + "\n")
}
