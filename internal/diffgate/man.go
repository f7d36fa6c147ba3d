package diffgate

import (
	"io"

	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/manpage"
)

// ManPage writes git-diffgate(1).
func ManPage(w io.Writer) error {
	a := app()
	k, err := a.Parser()
	if err != nil {
		return err
	}
	return manpage.Render(w, manpage.Page{
		Name: "git-diffgate", Usage: "git diffgate", Title: "a review gate that no unattended agent can pass",
		Version: "git-tdd toolkit", Model: k.Model,
		Synopsis: []string{
			"git diffgate [review] [--auto] [-m TEXT] [--branch BRANCH --to REV]",
			"git diffgate report [--json] [--range A..B]",
			"git diffgate install [--strict] [--force]",
			"git diffgate uninstall",
			"git diffgate status [--json]",
			"git diffgate verify [RANGE] [--json]",
			"git diffgate completion bash|zsh|fish",
		},
		Description: description + `

For each staged file it measures lines_before, lines_after, lines_added and lines_deleted; change_ratio = (added + deleted) / max(lines_before, 1). A file requires review when change_ratio > 0.5 (strictly; [diffgate] change_ratio_threshold); it is a replacement when change_ratio > 0.8 and lines_after < lines_before / 2. A deleted file always requires review; an added or copied file never does. A modified binary file or a moved submodule requires review with line counts 0. A mode-only change has ratio 0.

It reads code too. For Python (def, async def and class, at module level and inside classes) and Go (func, methods named by receiver type, type, and top-level var and const by name), a definition that a modified, renamed or deleted file had before the change and has not after is removed, and the file requires review whatever its ratio (reason "removed definitions"; the review says REMOVED: <path>: def load_state, class Cache above its diff). It is not removed when the same file gained one of the same kind under a new name with exactly the same body (renamed), or another file of the change, in the same language, gained one of the same kind and name that keeps at least 80% of its body's lines (moved): a stub of the same name elsewhere hides nothing. report --json lists removed_symbols, moved_symbols (with to, the path) and renamed_symbols (with new_name) for each file, and symbols_note when its definitions were not compared: an old version that does not parse, or is over 1 MiB (512 KiB for Go), leaves the file to the ratio; a new version that does not parse, or grew over that size, loses every definition it had. [diffgate] symbols = false turns this off; symbols_ignore = ["test_*", "_*"] leaves out names that match a glob.

Nothing in the review is invisible or cut. Every character a terminal shows as nothing or as something else is printed as an escape \u{…}: the C1 controls, every format character (Cf: zero-width characters, bidi controls, the tag characters U+E0000–E007F), the default-ignorable code points (the variation selectors U+FE00–FE0F and U+E0100–E01EF and the combining grapheme joiner U+034F, which Python takes in names; the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, which it takes as whole names; U+17B4, U+180B–180F, U+FFF0–FFF8, …), whitespace other than the ASCII space and tab, the blank Braille pattern, private-use and unassigned code points, and a combining mark (Mn, Me) that does not stand on a letter or digit of the same word; other controls are shown as ^X and an invalid UTF-8 byte as \x{ff}. A backslash of the file before u{ or x{ or before an escape is doubled, so the text \u{fe00} in a file never reads as an escaped character. A file whose added lines have any such character requires review whatever its ratio (reason "invisible"; INVISIBLE: <path>: 2 characters a terminal does not show (shown as \u{…})); report --json counts them in invisible. They are counted in the new side of the change, so a file that only keeps its own is not flagged for them. A line wider than the screen is folded, each piece after the first on a line of its own behind a … mark, so that no pager or terminal cuts it; joined, the pieces are the line. The only limit is per file: a diff whose lines (the changed ones and three lines of context around them) are over [diffgate] max_shown_bytes (1 MiB by default; at most 16 MiB) is not printed. The file requires review (reason "not shown"; NOT SHOWN: <path>: N bytes of diff, over the limit of M; not_shown in report --json), and after the APPROVE of the review it is warned about again and needs an APPROVE of its own (Type APPROVE to accept <path> unseen, or REJECT to refuse it:), one for each such file: REJECT, or no valid answer, approves nothing.

The answer is read from the controlling terminal (/dev/tty), never from standard input, and typeahead is discarded before the prompt. An APPROVE is bound to the tree id of the staged content and the commit it was reviewed on: staging anything else needs a new review, and a commit of that tree consumes it.

On a terminal that reports its size, the review goes through git's pager (git var GIT_PAGER: GIT_PAGER, core.pager, PAGER, else less; run with sh -c and LESS=FRX unless LESS is set, as git runs it); when the pager exits, the stat's total and the banner are printed again right above the question. --no-pager, GIT_PAGER=cat, or a terminal without a size print straight through; a pager that fails is named and the review printed on the terminal. The pager only shows text: the question is asked after it exits, on /dev/tty, with everything typed or injected before it discarded; a core.pager from the repository's own .git/config (which anything running there can write) is not used: PAGER, else less, shows the review, and a line says so. A pager runs as you, and a process it leaves behind that injects keystrokes (TIOCSTI, where the kernel allows it) could answer, as could any process of yours: signed approvals checked by verify are the proof.`,
		Sections: []manpage.Section{
			{Title: "HOOKS", Body: `git diffgate install writes shims into the directory git runs hooks from (git rev-parse --git-path hooks, which follows core.hooksPath and serves every linked worktree):

- pre-commit and pre-merge-commit pass at once when the index tree has an approval on HEAD, and otherwise run the review inline on the terminal; without one they refuse the commit.
- prepare-commit-msg adds the trailer Diffgate-Approved: <time> tree=<tree id> (where git interpret-trailers would), for -m, -F, templates, --amend and merges, never twice; a trailer that names another tree is dropped. A message-only --amend keeps HEAD's approval only when verify would accept it.
- post-commit and post-merge turn the approval into a record that the commit was reviewed.
- with --strict, only two hooks are installed: prepare-commit-msg is the gate as well as the trailer (git commit --no-verify does not skip it; a rebase, cherry-pick or revert is judged when its branch moves instead), and reference-transaction turns approvals into reviewed records as it lets branches move, and judges every update of a refs/heads/ branch: a branch created at a commit that another branch already has (not merely a tag, a remote-tracking ref or a git tdd workflow's branch), a rewind, an update that keeps the tree, and an update to a commit whose tree was approved on the old tip (or which landed with an approval, or whose commits each carry an approval of their own tree signed by a key in the allowed_signers file committed at the old tip, as verify checks) pass, unless that commit is a git tdd gate commit (TDD-Phase), which review --branch then refuses to review; anything else refuses the whole transaction. An update with no old value is judged from what the branch holds. While a branch is a symbolic ref to anything but a branch (git symbolic-ref runs no hook before git 2.46), every transaction is refused until it is deleted. Commits and their parents are read from the objects themselves, never through replace refs, a graft file, the commit-graph file or a loose object that does not hash to its name. So git commit --no-verify, update-ref, commit-tree with update-ref and a fast-forward to unreviewed commits cannot land unreviewed content, while fetch, stash, reset and checkout -b keep working; a pull passes when upstream signed its approvals, else review it first (git diffgate review --branch main --to origin/main).

A hook you had is kept as <hook>.pre-diffgate and runs first, with its arguments and stdin; uninstall puts it back and removes only what install wrote. A shim that cannot find git-diffgate refuses and says how to reinstall. Branches of active git tdd workflows are exempt: there the git tdd gates apply, and git tdd merge reviews the whole branch.

Where a hook manager owns the hooks (lefthook.yml, .pre-commit-config.yaml, .husky/, core.hooksPath at .husky/_, or a hook one of them wrote), install writes nothing and prints how to add the gate to the manager (exit 1); --force installs anyway, chaining the manager's hooks. The recipes run git-diffgate hook NAME [ARGS], what the shims run, which is stable for this use: pre-commit and pre-merge-commit (the gate), prepare-commit-msg MSGFILE (the trailer), post-commit and post-merge (the record). The repository's .pre-commit-hooks.yaml offers them to pre-commit as git-diffgate, git-diffgate-trailer and git-diffgate-record.

Under --strict, a rebase stops when it would move the branch; review the move with git diffgate review --branch BRANCH --to HEAD and run git rebase --continue. Cherry-pick with --no-commit, review with git diffgate, then commit.`},
			{Title: "SHELL COMPLETION", Body: `git diffgate completion bash|zsh|fish prints a completion script generated from the command tree, with git's hooks (_git_diffgate for git's bash completion, _git-diffgate for zsh's _git, a hand-over from git to git-diffgate for fish); install.sh installs it where each shell looks. See git-tdd(1).`},
			{Title: "JSON OUTPUT", Body: `With --json these print one document on standard output, with these fields always present (diagnostics stay on standard error):

report --json: {tree, base, files: [{path, old_path, status, binary, submodule, mode_changed, invisible, not_shown, lines_before, lines_after, lines_added, lines_deleted, change_ratio, is_replacement, requires_review, reason}], flagged: [paths], summary: {files, added, deleted}}; a path that is not valid UTF-8 also comes as path_base64 (and old_path_base64). Exit 1 when anything is flagged.

status --json: {hooks: {dir, installed, strict, missing: [hooks], chained: [hooks], managers: [lefthook, pre-commit or husky]}, signing: {format, signing_key, commit_gpgsign, ready, missing, listed: true, false or null when unknown}, allowed_signers ("" when none), staged_tree, base ("" before the first commit), staged, approval: null or {tree, parent, time, message, flagged, by, source}}.

verify --json: {range, signers ("" when signatures are not required), base, commits: [{commit, subject, ok, problem ("" when it holds), signature (git's %G?, when required), signer}], failed (how many do not hold)}. Exit 1 when one does not.`},
			{Title: "EXIT STATUS", Body: manpage.Table(exitcode.Table)},
			{Title: "FILES", Body: `$(git rev-parse --git-common-dir)/tdd/state.toml holds approvals, reviewed commits and git tdd workflows, shared by every worktree and written under a lock.

$(git rev-parse --git-common-dir)/tdd/audit.jsonl has a JSON line for every approval, rejection and refusal.

.git-tdd.toml at the top of the repository sets [diffgate] change_ratio_threshold, replacement_ratio, symbols, symbols_ignore and max_shown_bytes; it is read as committed in HEAD, so an uncommitted change to it does not loosen the gate.`},
			{Title: "ENVIRONMENT", Body: `- GIT_TDD_AUTO=1 acts as --auto: never prompt, fail closed.
- GIT_PAGER, then core.pager, PAGER: the pager of the review, as git chooses it; cat or empty means none. LESS and LV are set to FRX and -c for it unless set.
- NO_COLOR, TERM=dumb and CLICOLOR_FORCE decide colour after --color.
- GIT_TDD_TRACE=1 logs every git call and its duration on standard error.
- GIT_TDD_DIFF_SHARDS=N splits the patch of a change of 512 files or more over N git diff-tree processes (default: half the CPUs from 4 CPUs, else one); the shards must together give exactly one diff-tree's listing, or one process does it all.`},
			{Title: "SECURITY", Body: `The hooks stop accidents and unattended agents, which have no terminal to answer on; --strict adds plumbing and --no-verify. No local hook stops a process that runs git -c core.hooksPath=/dev/null, writes ref files itself, edits the state file, or controls a terminal. Run git diffgate verify in CI on the branch that matters: every commit on its first-parent chain must carry a trailer naming its own tree, and the commits a reviewed merge brings in are covered by that merge's review.

An approval is only an approval. verify and --strict read Diffgate-Approved only from the final trailer block of a commit's message, as git's trailer parser finds it with its defaults (the last paragraph after the subject, when all of it is trailers, or a quarter of it with a Signed-off-by; comment lines, blank lines and what follows a scissors line do not count), and only when there is exactly one, written Diffgate-Approved: <RFC 3339 time> tree=<40 or 64 hex digits>: a commit with two (whatever their case), a malformed one, or one elsewhere in the message has none. A commit git tdd wrote as a gate (a TDD-Phase trailer: its red and green) is never an approved commit of a branch, signed or not: it lands as the second parent of an approved git tdd merge, whose review covers it, and verify, which checks the first-parent chain, never judges it on its own. Every value git tdd writes into a commit message (a test id, a path, a subject, an issue's URL) is one line of printable text of at most 512 bytes, or the command refuses; so a test named to hold a line break cannot add a trailer to a commit you sign.

A trailer is a claim anyone can type. Proof that a human approved is a signature by a key the agent cannot use: a FIDO2 key (ssh-keygen -t ed25519-sk) that needs a touch, or a passphrase key kept out of ssh-agent. With [diffgate] allowed_signers naming an OpenSSH allowed-signers file in .git-tdd.toml, verify also requires each commit to carry a good SSH signature (gpg.format=ssh, user.signingkey, commit.gpgsign) by a key listed in that file as committed at the range's base, so that a range cannot add its own key; a range without a base is refused. install and status say whether your commits are signed and whether your key is listed; git tdd merge signs its merge commit when commit.gpgsign is set.

A committed .git-tdd.toml that does not parse gives way, in the hooks and in review, to the built-in defaults, with a warning on every run, so that the commit that fixes it can be reviewed; report and verify exit 2. A relative core.hooksPath is resolved in each linked worktree's own directory, so those have no hooks: install warns. A commit the pre-commit hook refuses makes git commit exit 1, git's code for a refusing hook.`},
			{Title: "EXAMPLES", Body: `  git add -A && git diffgate              # review and approve what is staged
  git diffgate report --json | jq .flagged
  git diffgate install --strict
  git diffgate verify origin/main..HEAD   # in CI; examples/github-actions.yml runs it on pull requests`},
			{Title: "SEE ALSO", Body: "git-tdd(1), githooks(5), git-interpret-trailers(1)"},
		},
	})
}
