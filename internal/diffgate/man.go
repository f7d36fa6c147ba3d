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

What is checked out is what is shown. A file of the change whose checkout is not its blob is CONVERTED and requires review whatever its ratio (reason "converted"): working-tree-encoding (a blob kept in UTF-8 and re-encoded on checkout, where a Shift_JIS ¥ is a backslash to Python), a filter whose smudge (or process) command is configured, ident, and line-ending conversion to CRLF (eol=crlf, or text, text=auto and no text attribute under core.autocrlf=true or core.eol=crlf). The attributes are those a checkout of the reviewed tree uses: its own .gitattributes files, and the files outside it that git reads here too, .git/info/attributes, core.attributesFile (default ~/.config/git/attributes) and the system's, which are named ("filter=x from .git/info/attributes") because a clone elsewhere, CI's, does not have them. git itself says which attributes apply (check-attr) and checks the file out (checkout-index, into a throwaway index of the tree and an empty directory, so that an uncommitted .gitattributes has no say); a filter's command runs only for the files whose attributes name it, as a checkout would run it, and a file that goes through one is flagged even when it wrote the blob, since the next checkout may not. The review prints CONVERTED: <path> (<what converts it>): the checkout differs from the blob, then the text as it is checked out (what git tdd and CI run), each line marked | or, where it is not the blob's, !, above the blob's diff (a checkout that only turns LF into CRLF is said in one line). report --json lists what converts each file in converted. A .gitattributes file that the change adds, modifies, renames or deletes requires review too (reason "attributes"): attributes change how every file under it checks out, is diffed and merged. Its warning names the files under it that the change leaves as they were and now converts, and shows them as checked out (the first 20; the others are named). With no attributes anywhere and no core.autocrlf, none of this runs a process.

The answer is read from the controlling terminal (/dev/tty), never from standard input, and typeahead is discarded before the prompt. An APPROVE is bound to the tree id of the staged content and the commit it was reviewed on: staging anything else needs a new review, and a commit of that tree consumes it.

On a terminal that reports its size, the review goes through git's pager (git var GIT_PAGER: GIT_PAGER, core.pager, PAGER, else less; run with sh -c and LESS=FRX unless LESS is set, as git runs it); when the pager exits, the stat's total and the banner are printed again right above the question. --no-pager, GIT_PAGER=cat, or a terminal without a size print straight through; a pager that fails is named and the review printed on the terminal. The pager only shows text: the question is asked after it exits, on /dev/tty, with everything typed or injected before it discarded; a core.pager from the repository's own .git/config (which anything running there can write) is not used: PAGER, else less, shows the review, and a line says so. A pager runs as you, and a process it leaves behind that injects keystrokes (TIOCSTI, where the kernel allows it) could answer, as could any process of yours: signed approvals checked by verify are the proof.`,
		Sections: []manpage.Section{
			{Title: "HOOKS", Body: `git diffgate install writes shims into the directory git runs hooks from (git rev-parse --git-path hooks, which follows core.hooksPath and serves every linked worktree):

- pre-commit and pre-merge-commit pass at once when the index tree has an approval on HEAD, and otherwise run the review inline on the terminal; without one they refuse the commit.
- prepare-commit-msg adds the trailer Diffgate-Approved: <time> tree=<tree id> (where git interpret-trailers would), for -m, -F, templates, --amend and merges, never twice; a trailer that names another tree is dropped.
- post-commit and post-merge turn the approval into a record that the commit was reviewed.
- with --strict, only two hooks are installed: prepare-commit-msg is the gate as well as the trailer (git commit --no-verify does not skip it; a rebase, cherry-pick or revert is judged when its branch moves instead), and reference-transaction turns approvals into reviewed records as it lets branches move, and judges every update of a refs/heads/ branch: a branch created at a commit that another branch already has (not merely a tag, a remote-tracking ref or a git tdd workflow's branch), a rewind, an update that keeps the tree, and an update to a commit whose tree was approved on the old tip (or which landed with an approval, or whose commits each carry an approval of their own tree signed by a key in the allowed_signers file committed at the old tip, as verify checks) pass; anything else refuses the whole transaction. An update with no old value is judged from what the branch holds. While a branch is a symbolic ref to anything but a branch (git symbolic-ref runs no hook before git 2.46), every transaction is refused until it is deleted. Commits and their parents are read from the objects themselves, never through replace refs, a graft file, the commit-graph file or a loose object that does not hash to its name. So git commit --no-verify, update-ref, commit-tree with update-ref and a fast-forward to unreviewed commits cannot land unreviewed content, while fetch, stash, reset and checkout -b keep working; a pull passes when upstream signed its approvals, else review it first (git diffgate review --branch main --to origin/main).

A hook you had is kept as <hook>.pre-diffgate and runs first, with its arguments and stdin; uninstall puts it back and removes only what install wrote. A shim that cannot find git-diffgate refuses and says how to reinstall. Branches of active git tdd workflows are exempt: there the git tdd gates apply, and git tdd merge reviews the whole branch.

Where a hook manager owns the hooks (lefthook.yml, .pre-commit-config.yaml, .husky/, core.hooksPath at .husky/_, or a hook one of them wrote), install writes nothing and prints how to add the gate to the manager (exit 1); --force installs anyway, chaining the manager's hooks. The recipes run git-diffgate hook NAME [ARGS], what the shims run, which is stable for this use: pre-commit and pre-merge-commit (the gate), prepare-commit-msg MSGFILE (the trailer), post-commit and post-merge (the record). The repository's .pre-commit-hooks.yaml offers them to pre-commit as git-diffgate, git-diffgate-trailer and git-diffgate-record.

Under --strict, a rebase stops when it would move the branch; review the move with git diffgate review --branch BRANCH --to HEAD and run git rebase --continue. Cherry-pick with --no-commit, review with git diffgate, then commit.`},
			{Title: "SHELL COMPLETION", Body: `git diffgate completion bash|zsh|fish prints a completion script generated from the command tree, with git's hooks (_git_diffgate for git's bash completion, _git-diffgate for zsh's _git, a hand-over from git to git-diffgate for fish); install.sh installs it where each shell looks. See git-tdd(1).`},
			{Title: "JSON OUTPUT", Body: `With --json these print one document on standard output, with these fields always present (diagnostics stay on standard error):

report --json: {tree, base, files: [{path, old_path, status, binary, submodule, mode_changed, lines_before, lines_after, lines_added, lines_deleted, change_ratio, is_replacement, requires_review, reason, removed_symbols, moved_symbols, renamed_symbols, symbols_note, converted}], flagged: [paths], summary: {files, added, deleted}}; converted lists what makes the file's checkout differ from its blob, each an attribute as .gitattributes writes it or a setting (working-tree-encoding=SHIFT_JIS, eol=crlf, ident, filter=lfs, core.autocrlf=true), followed by "from <file>" when a file outside the tree sets it; it is empty, never null, when nothing does. A path that is not valid UTF-8 also comes as path_base64 (and old_path_base64). Exit 1 when anything is flagged.

status --json: {hooks: {dir, installed, strict, missing: [hooks], chained: [hooks], managers: [lefthook, pre-commit or husky]}, signing: {format, signing_key, commit_gpgsign, ready, missing, listed: true, false or null when unknown}, allowed_signers ("" when none), staged_tree, base ("" before the first commit), staged, approval: null or {tree, parent, time, message, flagged, by, source}}.

verify --json: {range, signers ("" when signatures are not required), base, commits: [{commit, subject, ok, problem ("" when it holds), signature (git's %G?, when required), signer}], failed (how many do not hold)}. Exit 1 when one does not.`},
			{Title: "EXIT STATUS", Body: manpage.Table(exitcode.Table)},
			{Title: "FILES", Body: `$(git rev-parse --git-common-dir)/tdd/state.toml holds approvals, reviewed commits and git tdd workflows, shared by every worktree and written under a lock.

$(git rev-parse --git-common-dir)/tdd/audit.jsonl has a JSON line for every approval, rejection and refusal.

.git-tdd.toml at the top of the repository sets [diffgate] change_ratio_threshold, replacement_ratio, symbols and symbols_ignore; it is read as committed in HEAD, so an uncommitted change to it does not loosen the gate.`},
			{Title: "ENVIRONMENT", Body: `- GIT_TDD_AUTO=1 acts as --auto: never prompt, fail closed.
- GIT_PAGER, then core.pager, PAGER: the pager of the review, as git chooses it; cat or empty means none. LESS and LV are set to FRX and -c for it unless set.
- NO_COLOR, TERM=dumb and CLICOLOR_FORCE decide colour after --color.
- GIT_TDD_TRACE=1 logs every git call and its duration on standard error.
- GIT_TDD_DIFF_SHARDS=N splits the patch of a change of 512 files or more over N git diff-tree processes (default: half the CPUs from 4 CPUs, else one); the shards must together give exactly one diff-tree's listing, or one process does it all.`},
			{Title: "SECURITY", Body: `The hooks stop accidents and unattended agents, which have no terminal to answer on; --strict adds plumbing and --no-verify. No local hook stops a process that runs git -c core.hooksPath=/dev/null, writes ref files itself, edits the state file, or controls a terminal. Run git diffgate verify in CI on the branch that matters: every commit on its first-parent chain must carry a trailer naming its own tree, and the commits a reviewed merge brings in are covered by that merge's review.

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
