package tdd

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/manpage"
)

// ManPage writes git-tdd(1).
func ManPage(w io.Writer) error {
	k, err := app().Parser()
	if err != nil {
		return err
	}
	return manpage.Render(w, manpage.Page{
		Name: "git-tdd", Usage: "git tdd", Title: "an issue-anchored TDD lifecycle that git enforces",
		Version: "git-tdd toolkit", Model: k.Model,
		Synopsis: []string{
			"git tdd start ISSUE [--base BRANCH] [--lld FILE] [--context PATH...] [--dir DIR]",
			"git tdd status [ISSUE] [--json]",
			"git tdd list [--json]",
			"git tdd red [ISSUE]",
			"git tdd green [ISSUE]",
			"git tdd lint [ISSUE]",
			"git tdd merge [ISSUE] [--auto]",
			"git tdd abort [ISSUE] [--force]",
			"git tdd context [PATH...] [--lld FILE] [--json]",
			"git tdd prompt PATH --change add|modify [--lld FILE] [--tests PATH...]",
			"git tdd write PATH [--from FILE] [--strategy append|insert|extend|replace] [--line N] [--auto] [--force]",
			"git tdd patch [PATH] [--from FILE] [--dry-run] [--json]",
		},
		Description: description + `

Inside a workflow's worktree the issue is inferred; elsewhere it is named.`,
		Sections: []manpage.Section{
			{Title: "THE GATES", Body: `red runs the tests and routes by pytest's exit code and its per-test results: exit 1 with a test of a file added or changed on the branch failing by assertion is a red (the failing ids and a sha256 of every test file are recorded, and everything is committed as test(#N): red — K failing with the trailers TDD-Phase: red and TDD-Failing); exit 0 is "Tests passed prematurely. Write failing tests first." (exit 1); failures only in untouched files, only errors, or only hollow tests (assert False, pytest.fail(), raise NotImplementedError, a skip) are not a red (exit 1); exit 4 or 5 is a broken scaffold (exit 1, and exit 4 after [test] max_retries attempts); exit 2 or 3 or the timeout escalate (exit 4), quoting the collection error.

green needs a red. A test file recorded at red that changed or disappeared refuses it (exit 1, naming it; run red again to change the tests). Every red id must be present and pass, not be skipped. Then the implementation is committed as feat(#N): green — K passing with TDD-Phase: green. Still failing is exit 1 with attempt k of 3; the third failure is exit 4. After green, green again commits refactoring.

merge needs a green and a human on the terminal. It re-runs the tests and [lint] command, merges in memory, shows the diff-gate review of the whole branch against the base's tip, and asks: Type APPROVE to merge #N into BASE, REJECT to keep working, or ABORT to discard. APPROVE writes Merge #N: SUBJECT with TDD-Issue and Diffgate-Approved trailers, moves the base (a fast-forward of its checkout, or a checked ref update), removes the worktree and deletes the branch. Uncommitted changes in any checkout, or a conflict with a base that moved on, stop it before anything changes.

abort saves uncommitted work and unmerged commits under refs/tdd/backup/ISSUE-TIME, prints the ref, and removes the worktree and the branch; discarding them needs ABORT typed on the terminal, or --force.`},
			{Title: "WRITING CODE SAFELY", Body: `Every path given to context, prompt, write and patch must resolve (symlinks included) inside the working tree and outside .git and its look-alikes (.GIT, .git., git~1 and others); otherwise exit 2 and nothing is read or written. Each directory on the way is opened on its own and checked, so a symlink swapped in meanwhile cannot lead a read or write out of the tree or into .git.

write reads the new content from standard input (or --from); the whole-file answer that prompt asks for (a "### FILE: PATH" line and a fence) is unwrapped. A new file, or an existing one of at most [write] approval_lines (100) lines, is written at once. A longer one needs a human on the terminal: it shows "About to replace N lines with M lines" and the diff (cut at 10 KB), and asks "Choose [a]ppend, [i]nsert, [e]xtend, [r]eplace or [c]ancel:". extend adds the members a Python class or Go type lacks and keeps the ones it has. Without a terminal, or with --auto: exit 3, "Cannot replace non-trivial files in auto mode", the content saved under .git/tdd/pending/ and the command a human runs named; --force replaces unless [write] allow_force = false. Writes are atomic (temp file, fsync, mode kept, rename, fsync of the directory) and never over a file that changed meanwhile.

patch applies FIND/REPLACE blocks from standard input, in the seed's format (### CHANGE n:, FIND:, REPLACE WITH: with fenced blocks) or aider's (<<<<<<< SEARCH, =======, >>>>>>> REPLACE, the file named on the line before). Blocks apply in order; matching is exact first, then tolerant of trailing whitespace, an indentation shift (the replacement re-indented) and blank lines. Two matches are ambiguous, no match shows the closest region, a replacement already there is reported as applied; any failure writes nothing in any file. CRLF, a BOM and a missing final newline are kept. --json reports per block with stable codes.

context prints the files an agent may read, refusing (exit 2) secrets by name and by content, files over 100 KB, paths through "..", and a total over 200,000 tokens counted with the cl100k_base tokenizer, offline. prompt prints the instructions for one file: the whole file, or FIND/REPLACE blocks for a large one (over 500 lines or 15,000 bytes).`},
			{Title: "EXIT STATUS", Body: manpage.Table(exitcode.Table)},
			{Title: "FILES", Body: `.git-tdd.toml at the top of the repository configures the test command, the worktrees, the thresholds and the agent; every key is optional and an unknown key is an error naming the file and line.

$(git rev-parse --git-common-dir)/tdd/state.toml holds the workflows by issue, shared by every worktree; $(git rev-parse --git-common-dir)/tdd/audit.jsonl logs every operation that changed, or refused to change, something; $(git rev-parse --git-common-dir)/tdd/pending/ keeps content an unattended write could not put in place.`},
			{Title: "ENVIRONMENT", Body: `- GIT_TDD_AUTO=1 acts as --auto: never prompt, fail closed.
- NO_COLOR, TERM=dumb and CLICOLOR_FORCE decide colour after --color.
- GIT_TDD_TRACE=1 logs every git call and its duration on standard error.`},
			{Title: "SEE ALSO", Body: "git-diffgate(1), git-worktree(1)"},
		},
	})
}
