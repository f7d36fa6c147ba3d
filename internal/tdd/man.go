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
			"git tdd red [ISSUE] [--json]",
			"git tdd green [ISSUE] [--json]",
			"git tdd lint [ISSUE]",
			"git tdd merge [ISSUE] [--auto] [--json]",
			"git tdd abort [ISSUE] [--force]",
			"git tdd verify [RANGE] [--all] [--json]",
			"git tdd run ISSUE [--lld FILE] [--context PATH...] [--auto] [--json]",
			"git tdd issue new BRIEF.md [--name SLUG]",
			"git tdd issue resume SLUG",
			"git tdd issue list [--json]",
			"git tdd context [PATH...] [--lld FILE] [--json]",
			"git tdd prompt PATH --change add|modify [--lld FILE] [--tests PATH...]",
			"git tdd write PATH [--from FILE] [--strategy append|insert|extend|replace] [--line N] [--auto] [--force]",
			"git tdd patch [PATH] [--from FILE] [--dry-run] [--json] [--auto] [--force]",
		},
		Description: description + `

Inside a workflow's worktree the issue is inferred; elsewhere it is named.`,
		Sections: []manpage.Section{
			{Title: "THE GATES", Body: `Every verdict comes from git objects and from a test run git tdd seals itself; state.toml only says where things are. The test run's environment drops the variables that inject code or options (PYTHON*, PYTEST_*, LD_*, GOFLAGS, NODE_OPTIONS, JAVA_TOOL_OPTIONS and others; see ENVIRONMENT) unless the committed [test] env sets them, and pytest reads its configuration and conftest.py files from the worktree only (--rootdir, --confcutdir and -c are set for it).

The frozen test surface is the test files ([test] test_paths), conftest.py at any depth, pytest.ini, .pytest.ini, pytest.toml, tox.ini, setup.cfg and pyproject.toml (of the last three only the section pytest reads), *_test.go, testdata/ and the [test] freeze globs. The files the test command names (a script, a Makefile, the whole tox.ini, noxfile.py) are frozen too. A file git ignores that the test runner would load refuses a gate: no proof can rest on a file in no commit. So does what a branch adds that would run under the tests without anyone reading it as source: compiled Python (__pycache__, .pyc), native libraries, .pth files, sitecustomize.py, package metadata (*.dist-info, *.egg-info) whose entry points pytest loads, a module named pytest, _pytest, pluggy, py or iniconfig in an import root, a nested repository, and a symlink in the frozen surface, to a directory, out of the repository or to nothing committed. The index's assume-unchanged and skip-worktree bits do not hide a file from the gates.

red writes the working tree as a tree before it runs the tests and compares the frozen surface with it after; a change during the run refuses it (exit 1, naming the files). A test counts for the red when its function is new on the branch or its body changed, not when its file was merely touched. Exit 1 with such a test failing by assertion is a red; so is a test file of the branch that cannot import a name or module of the repository (from calc import mul before mul exists: the natural red, recorded as the file). The tested tree is committed as test(#N): red — K failing with the trailers TDD-Phase: red and one TDD-Failing per test. Exit 0 is "Tests passed prematurely. Write failing tests first." (exit 1); failures only in tests the branch did not write, only errors, only hollow tests or tests marked xfail(strict=True) that pass are not a red (exit 1); exit 4 or 5 is a broken scaffold (exit 1, and exit 4 after [test] max_retries attempts); other collection errors (a syntax error, a missing third-party module), an internal error or the timeout escalate (exit 4), quoting the error.

green finds the last red commit in the branch's history and reads its TDD-Failing trailers. The frozen surface must be that commit's before and after the run (exit 1 naming what changed; run red again to change the tests). Every red test must be in the report and passed (not skipped, not xfail, not deselected), a red test file must have at least one collected test, all passed, nothing may fail, and the command's own exit must be 0: the exit code alone never makes a green. Then the tested tree is committed as feat(#N): green — K passing with TDD-Phase: green. Still failing is exit 1 with attempt k of 3; the third failure is exit 4. After green, green again commits refactoring. git tdd's own commits are written with git commit-tree: commit hooks do not run on them; commit.gpgSign is honoured.

merge needs a green and a human on the terminal, and trusts no state file: from the branch's history it finds the last red commit, checks that the tip's frozen surface is that commit's, checks the recorded red tests out in a temporary worktree and runs them there (they must fail; when the red changed existing code, also on the code the branch started from; each recorded id must be a test of a test file new or changed on the branch, and not hollow), then runs the whole suite and [lint] command on the merge result (it must pass). Only then does it show the diff-gate review of the whole branch against the base's tip, with the diff of every file (flagged ones first, then the tests, then the rest), and ask: Type APPROVE to merge #N into BASE, REJECT to keep working, or ABORT to discard. APPROVE writes Merge #N: SUBJECT with TDD-Issue and Diffgate-Approved trailers, moves the base (a fast-forward of its checkout, or a checked ref update), removes the worktree and deletes the branch. Uncommitted changes in any checkout, a conflict with a base that moved on, or a proof that fails stop it before anything changes.

verify, for CI, re-proves every Merge #N made by git tdd merge on the first-parent chain of RANGE (default @{upstream}..HEAD) as merge does: red at the last red commit of the merged branch, the frozen surface, and the whole suite on the merge commit, whose tree must be exactly the merge of its parents, with the configuration committed at the range's base. With --all every commit of the chain must be such a merge. Exit 1 names the merges that do not hold.

red, green and merge with --json print one object on standard output: issue, gate, ok, verdict, exit_code, message, tests, commit (and proved for merge).

abort saves uncommitted work and unmerged commits under refs/tdd/backup/ISSUE-TIME, prints the ref, and removes the worktree and the branch; discarding them needs ABORT typed on the terminal, or --force.`},
			{Title: "DRIVING AN AGENT", Body: `run drives [agent] through seed 002's graph: N0 prints the data policy (where prompts go, what they carry, how many tokens), checks the context and starts the workflow; N1 asks for the tests (only the frozen surface may change); N2 is the red gate (tests that pass or do not run go back to N1 with the reason, at most [test] max_retries times; a broken run stops for a human, exit 4); N3 asks for the code (the frozen surface may not change); N4 is the green gate (failing goes back to N3, at most max_retries times); N5 the lint; N6 git tdd merge's review on the terminal (without one, or with --auto, exit 3); N7 the merge. Every transition is saved in state.toml and run resumes where it stopped.

[agent] command is a program that reads the prompt on stdin and answers on stdout, run without a shell in its own process group and the sealed environment; provider = "anthropic" or "openai" (any compatible server with base_url) with model, api_key_env, max_tokens, through the official SDKs. In mode = "text" the answer's "### FILE: PATH" sections go through write and patch; in mode = "edit" the command edits the worktree itself and what the node forbids is rolled back. A path outside the worktree stops the run. An answer cut off at the token limit is asked for again, at most three times, and never written. Users override [agent] in $XDG_CONFIG_HOME/git-tdd/config.toml or with git config tdd.agent.*. Progress is on standard error; --json prints one object per transition.`},
			{Title: "DRAFTING ISSUES", Body: `issue runs seed 004's workflow, in which no model's output reaches another model or GitHub without passing a human, and every step leaves a numbered file in docs/audit/active/SLUG/ (001, 002, ... in event order). N0: issue new saves the brief as 001-brief.md; the workflow is named after the brief's file name (lower case, other characters made '-'), or --name; a name in use asks [R]esume existing / [N]ew name / [A]bort (abort changes nothing, exit 0). N1: before anything is made, [issue] drafter and reviewer must be set, the review prompt ([issue] review_prompt) committed, the editor (git var GIT_EDITOR, split into words without a shell; $(...), pipes and lists are refused) found on PATH, gh found and logged in (gh auth status), and a terminal present (otherwise exit 3). N2: [issue] drafter gets the brief and the template ([issue] template as committed, or a built-in one), or, after a revision, the feedback, the current draft and the template; its answer is NNN-draft.md. N3: the editor opens the draft; then "Iteration i | Draft #d" and [S]end to the reviewer / [R]evise / [M]anual. Revise asks for feedback (a line, or edit to write it in the editor), saves NNN-feedback.txt and drafts again; the reviewer is not called. N4: [issue] reviewer gets the review prompt as committed at HEAD (an uncommitted edit is reported and not used; there is no option to change it) and the draft as the human left it; its answer is NNN-verdict.md. N5: the editor opens the draft and the verdict, which the human may sanitise; then [A]pprove and file / [R]evise / [M]anual; Revise sends the feedback with the verdict as the human left it. A file that changes between the editor closing and the answer is opened again. N6: labels from the draft's first **Labels:** line are created when the repository lacks them; gh issue create files the title (the first "# " heading) and the rest of the approved draft, read from standard input; on a failure, [R]etry / [E]dit draft (back to N5) / [A]bort (exit 1, everything kept). NNN-filed.json records the number, the URL, the labels, and the sha256 of the body and of every audit file; the folder moves to docs/audit/done/NUMBER-SLUG/ and its files are committed on HEAD in one commit (Audit trail of issue #N: TITLE, with a Diffgate-Approved trailer, signed when commit.gpgSign is set), leaving anything else staged alone.

The drafter and reviewer run without a shell, in an empty directory of their own, in the sealed environment without GH_TOKEN, GITHUB_TOKEN, SSH_AUTH_SOCK and gh's configuration, with [issue] timeout (10 minutes); an answer over 1 MiB or none is an error (exit 4) and nothing is saved. [issue] max_iterations (20) drafts at most; then exit 4. Manual stops (exit 0) with everything kept; issue resume SLUG continues at the last human gate reached, or at the model call a human asked for, after a closed terminal too. An issue that gh may have filed before the process died is looked for (gh issue list) before it is filed again. One process runs a workflow at a time; several workflows run at once. issue list shows each workflow: where it stands, its drafts and verdicts, its folder.`},
			{Title: "WRITING CODE SAFELY", Body: `Every path given to context, prompt, write and patch must resolve (symlinks included) inside the working tree and outside .git and its look-alikes (.GIT, .git., git~1 and others), and outside the repository's git directories wherever they are; the commands refuse to run when GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR or GIT_INDEX_FILE lead elsewhere than discovery from the current directory. Otherwise exit 2 and nothing is read or written. Each directory on the way is opened on its own and checked, so a symlink swapped in meanwhile cannot lead a read or write out of the tree or into .git.

write reads the new content from standard input (or --from); the whole-file answer that prompt asks for (a "### FILE: PATH" line and a fence) is unwrapped. A new file, or an existing one of at most [write] approval_lines (100) lines, is written at once. A longer one needs a human on the terminal: it shows "About to replace N lines with M lines", the diff (cut at 10 KB), where append and insert put the new lines and the diff of the file extend would give, and asks "Choose [a]ppend, [i]nsert, [e]xtend, [r]eplace or [c]ancel:"; with --strategy it shows the diff of that strategy's result and asks to confirm. extend adds the members a Python class or Go type lacks and keeps the ones it has. Without a terminal, or with --auto: exit 3, "Cannot replace non-trivial files in auto mode", the content saved under .git/tdd/pending/ and the command a human runs named (never --force); --force replaces unless [write] allow_force = false. Writes are atomic (temp file, fsync, mode kept, rename, fsync of the directory) and never over a file that changed meanwhile.

patch applies FIND/REPLACE blocks from standard input, in the seed's format (### CHANGE n:, FIND:, REPLACE WITH: with fenced blocks) or aider's (<<<<<<< SEARCH, =======, >>>>>>> REPLACE, the file named on the line before). Blocks apply in order; matching is exact first, then tolerant of trailing whitespace, an indentation shift (the replacement re-indented) and blank lines. Two matches are ambiguous, no match shows the closest region, a replacement already there is reported as applied; any failure writes nothing in any file. CRLF, a BOM and a missing final newline are kept. --json reports per block with stable codes. patch is gated like write: a result that deletes more than [write] approval_lines lines of a file, or that the diff gate would call a replacement, needs APPROVE on the terminal (unattended: exit 3, the input saved under pending/; --force unless allow_force = false); a .py or .go file that parsed and would not is refused.

context prints the files an agent may read, refusing (exit 2) secrets by name and by content, files over 100 KB, paths through "..", and a total over 200,000 tokens counted with the cl100k_base tokenizer, offline. prompt prints the instructions for one file: the whole file, or FIND/REPLACE blocks for a large one (over 500 lines or 15,000 bytes).`},
			{Title: "EXIT STATUS", Body: manpage.Table(exitcode.Table)},
			{Title: "FILES", Body: `.git-tdd.toml at the top of the repository configures the test command, the worktrees, the thresholds, the agent and the issue workflow; every key is optional and an unknown key is an error naming the file and line.

$(git rev-parse --git-common-dir)/tdd/state.toml holds the workflows by issue and the issue-drafting workflows by name, shared by every worktree: where things are, never proof; $(git rev-parse --git-common-dir)/tdd/audit.jsonl logs every operation that changed, or refused to change, something; $(git rev-parse --git-common-dir)/tdd/pending/ keeps content an unattended write could not put in place.`},
			{Title: "ENVIRONMENT", Body: `- GIT_TDD_AUTO=1 acts as --auto: never prompt, fail closed.
- NO_COLOR, TERM=dumb and CLICOLOR_FORCE decide colour after --color.
- GIT_TDD_TRACE=1 logs every git call and its duration on standard error.

The test, lint and setup commands run sealed: without PYTHON* (but PYTHONIOENCODING, PYTHONUTF8 and PYTHONUNBUFFERED), PYTEST_*, PY_*, LD_*, DYLD_*, BASH_ENV, ENV, BASH_FUNC_*, SHELLOPTS, BASHOPTS, CDPATH, GOFLAGS, GOROOT, GOEXPERIMENT, GODEBUG, CGO_*FLAGS*, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS, MAVEN_OPTS, GRADLE_OPTS, NODE_OPTIONS, RUSTFLAGS, RUSTDOCFLAGS, RUSTC_WRAPPER, RUSTC_WORKSPACE_WRAPPER, CARGO_BUILD_*, CARGO_ENCODED_RUSTFLAGS and the variables that point git elsewhere (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_* and others), with PYTHONDONTWRITEBYTECODE=1, PYTHONNOUSERSITE=1 and GOFLAGS=-count=1 set, and then the committed [test] env table on top. Everything else (PATH, HOME, proxies, VIRTUAL_ENV) is passed.`},
			{Title: "SEE ALSO", Body: "git-diffgate(1), git-worktree(1), gh(1)"},
		},
	})
}
