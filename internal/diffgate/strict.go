package diffgate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// RefUpdate is one line of reference-transaction's input.
type RefUpdate struct {
	Old, New, Ref string
}

// ParseRefUpdates parses "<old> <new> <ref>" lines; blank lines are skipped.
func ParseRefUpdates(b []byte) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || f[2] == "" {
			return nil, fmt.Errorf("reference-transaction: malformed line %q", line)
		}
		out = append(out, RefUpdate{Old: f[0], New: f[1], Ref: f[2]})
	}
	return out, sc.Err()
}

// Judged reports whether --strict judges an update: one that moves a branch to a
// commit. Every other ref (tags, remote-tracking refs, stash, notes, HEAD and
// other pseudo-refs), a deletion and a no-op pass at once.
// A branch made a symbolic ref to another branch (git 2.46 and later show
// those as "ref:<target>") lands nothing; to anything else it is refused
// before (refuseForeignSymrefs).
func (u RefUpdate) Judged() bool {
	return strings.HasPrefix(u.Ref, "refs/heads/") && u.Old != u.New && !gitx.IsNullOID(u.New) &&
		!strings.HasPrefix(u.New, "ref:")
}

// refuseForeignSymrefs refuses a transaction while a branch is a symbolic ref
// to anything but a branch. git symbolic-ref writes one without a ref
// transaction before git 2.46, so no hook sees main made to name a tag of
// unreviewed commits; and commits on such a branch then move what it names (a
// tag), which --strict does not judge. A transaction that deletes the branch
// passes: that is the repair.
//
// A git tdd workflow's branch counts as something else: it holds commits that
// wait for git tdd merge's review, and main made a symbolic ref to it would
// show them (and update-ref --no-deref would then make that a plain branch).
func refuseForeignSymrefs(env *cmdline.Env, repo *gitx.Repo, all []RefUpdate) error {
	syms, err := repo.SymbolicBranches(env.Ctx)
	if err != nil {
		return err
	}
	deleting := map[string]bool{}
	for _, u := range all {
		if gitx.IsNullOID(u.New) {
			deleting[u.Ref] = true
		}
		if target, ok := strings.CutPrefix(u.New, "ref:"); ok && strings.HasPrefix(u.Ref, "refs/heads/") {
			syms[u.Ref] = target
		}
	}
	if len(syms) == 0 {
		return nil
	}
	_, st, err := env.State(repo)
	if err != nil {
		return err
	}
	workflows := st.ActiveBranches()
	names := make([]string, 0, len(syms))
	for name := range syms {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := syms[name]
		if (!strings.HasPrefix(target, "refs/heads/") || workflows[target]) && !deleting[name] {
			return refuseSymref(name, target)
		}
	}
	return nil
}

func refuseSymref(ref, target string) error {
	if target == "" {
		target = "a symbolic link"
	}
	return exitcode.New(exitcode.Refused, "%s is a symbolic ref to %s: a branch that names something else moves without --strict seeing it (git diffgate --strict)", ref, target).
		WithHint("remove it: git symbolic-ref --delete %s\nthen point the branch at reviewed work: git diffgate review --branch %s --to <commit>", ref, strings.TrimPrefix(ref, "refs/heads/"))
}

// hookRefs judges the branch updates of a transaction in its prepared state; one
// refused update refuses the whole transaction.
func hookRefs(env *cmdline.Env, repo *gitx.Repo, stdin io.Reader) error {
	input, err := readAll(stdin)
	if err != nil {
		return err
	}
	all, err := ParseRefUpdates(input)
	if err != nil {
		return err
	}
	if err := refuseForeignSymrefs(env, repo, all); err != nil {
		return err
	}
	var updates []RefUpdate
	for _, u := range all {
		if u.Judged() {
			updates = append(updates, u)
		}
	}
	if len(updates) == 0 {
		return nil
	}
	if updates, err = fromCurrent(env, repo, updates); err != nil || len(updates) == 0 {
		return err
	}
	store, st, err := env.State(repo)
	if err != nil {
		return err
	}
	exempt := st.ActiveBranches()
	var ids []string
	for _, u := range updates {
		ids = append(ids, u.New)
		if !gitx.IsNullOID(u.Old) {
			ids = append(ids, u.Old)
		}
	}
	commits, err := repo.Commits(env.Ctx, ids...)
	if err != nil {
		return err
	}
	var landed []RefUpdate
	for _, u := range updates {
		if exempt[u.Ref] {
			continue
		}
		ok, err := allowed(env, repo, st, commits, u, exempt)
		if err != nil {
			return err
		}
		if !ok {
			store.Audit(env.Ctx, state.AuditEntry{Command: "diffgate strict", Path: u.Ref, Tree: commits[u.New].Tree,
				Parent: u.Old, Outcome: "refused", Detail: "moving " + u.Ref + " to " + u.New})
			if phase := commitmsg.Phase(commits[u.New].Message); phase != "" {
				return refuseGateCommit(u, phase)
			}
			return refuseMove(u)
		}
		if hasApproval(st, commits[u.New].Tree, approvalParents(commits[u.New], u)) {
			landed = append(landed, u)
		}
	}
	return consume(env, store, commits, landed)
}

// fromCurrent gives each update that names no old value the one its branch
// holds now: git writes zeros for "no old value" as for "no branch", so
// `git update-ref refs/heads/main X` would otherwise be judged as creating
// main. In the prepared state the branch still holds its old value.
func fromCurrent(env *cmdline.Env, repo *gitx.Repo, updates []RefUpdate) ([]RefUpdate, error) {
	var out []RefUpdate
	for _, u := range updates {
		if gitx.IsNullOID(u.Old) || strings.HasPrefix(u.Old, "ref:") {
			cur, ok, err := repo.RefValue(env.Ctx, u.Ref)
			if err != nil {
				return nil, err
			}
			if ok {
				u.Old = cur
			}
		}
		if u.Judged() {
			out = append(out, u)
		}
	}
	return out, nil
}

// approvalParents are the commits an approval of u's new tip may have been
// made on: the branch's old tip (HEAD before a commit or an --amend), and the
// new tip's parents; "" for a root commit.
func approvalParents(next gitx.CommitHeader, u RefUpdate) []string {
	parents := append([]string{}, next.Parents...)
	if !gitx.IsNullOID(u.Old) {
		parents = append([]string{u.Old}, parents...)
	}
	if len(next.Parents) == 0 {
		parents = append(parents, "")
	}
	return parents
}

// consume turns the approvals that let these updates through into records
// that their commits were reviewed: with --strict there is no post-commit
// hook to do it. Should git abort the transaction after this, the content
// must be approved again: the gate stays closed.
func consume(env *cmdline.Env, store *state.Store, commits map[string]gitx.CommitHeader, landed []RefUpdate) error {
	if len(landed) == 0 {
		return nil
	}
	return store.Update(env.Ctx, func(st *state.State) error {
		for _, u := range landed {
			next := commits[u.New]
			st.Consume(u.New, next.Tree, approvalParents(next, u))
		}
		return nil
	})
}

// allowed applies the rules of --strict to one branch update, cheapest first.
func allowed(env *cmdline.Env, repo *gitx.Repo, st *state.State, commits map[string]gitx.CommitHeader, u RefUpdate, exempt map[string]bool) (bool, error) {
	created := gitx.IsNullOID(u.Old)
	next, ok := commits[u.New]
	if !ok {
		return false, fmt.Errorf("%s: commit %s is missing", u.Ref, u.New)
	}
	if !created && next.Tree == commits[u.Old].Tree {
		return true, nil // the content does not change (a message-only amend)
	}
	// a commit git tdd wrote as a gate is never the approved tip of a branch:
	// it lands inside an approved git tdd merge (DESIGN §1)
	gate := commitmsg.Phase(next.Message) != ""
	parents := append([]string{u.Old}, next.Parents...)
	if created {
		parents = append([]string{""}, next.Parents...)
	}
	for _, p := range parents {
		if !gate && st.FindApproval(next.Tree, p) != nil {
			return true, nil
		}
	}
	if !gate && st.IsReviewed(u.New) {
		return true, nil
	}
	if created {
		// A branch created at a commit another branch already has lands
		// nothing new. Only branches count, and not a workflow's (its
		// commits wait for git tdd merge's review): a tag, a remote-tracking
		// ref or any other ref can be made at an unreviewed commit without
		// this hook seeing it.
		return repo.ReachableFrom(env.Ctx, u.New, reviewedBranches(exempt)...)
	}
	if ok, err := repo.IsAncestor(env.Ctx, u.New, u.Old); ok || err != nil {
		return ok, err // a rewind
	}
	return signedWork(env, repo, u)
}

// reviewedBranches are the rev-list options for every branch but the
// workflows' (check-ref-format keeps glob characters out of branch names).
func reviewedBranches(exempt map[string]bool) []string {
	var args []string
	for ref := range exempt {
		args = append(args, "--exclude="+strings.TrimPrefix(ref, "refs/heads/"))
	}
	sort.Strings(args)
	return append(args, "--branches")
}

// signedWork reports whether every commit a move brings in, along the first
// parent, carries an approval of its own tree signed by a key in the
// allowed-signers file committed at the branch's old tip: work reviewed
// upstream (a pull), proven as `git diffgate verify old..new` proves it, by
// what an agent here cannot forge. Where the commits came from does not
// count: an agent writes remote-tracking refs, and fetches from repositories
// it made, as freely as tags. Without allowed_signers nothing local proves a
// review, and the move is reviewed here.
func signedWork(env *cmdline.Env, repo *gitx.Repo, u RefUpdate) (bool, error) {
	signers, _, cleanup, err := signersAt(env, repo, u.Old)
	defer cleanup()
	if err != nil || signers == "" {
		return false, err
	}
	commits, err := repo.FirstParentSigned(env.Ctx, u.Old+".."+u.New, signers)
	if err != nil || len(commits) == 0 {
		return false, err
	}
	messages, err := messagesOf(env, repo, commits)
	if err != nil {
		return false, err
	}
	for _, c := range commits {
		if approvalProblem(c.Tree, messages[c.ID]) != "" || signatureProblem(c, "") != "" {
			return false, nil
		}
	}
	return true, nil
}

// refuseGateCommit says why a branch does not move to a commit git tdd wrote
// as a gate: no review of the move would make it one.
func refuseGateCommit(u RefUpdate, phase string) error {
	branch := strings.TrimPrefix(u.Ref, "refs/heads/")
	return exitcode.New(exitcode.Refused, "refusing to move %s to %s: it is a git tdd gate commit (%s: %s), which lands only through git tdd merge (git diffgate --strict)",
		branch, short(u.New), commitmsg.PhaseKey, term.Line(phase, 40)).
		WithHint("merge its workflow with git tdd merge, which proves it again and asks for your approval")
}

func refuseMove(u RefUpdate) error {
	branch := strings.TrimPrefix(u.Ref, "refs/heads/")
	return exitcode.New(exitcode.Refused, "refusing to move %s to %s: that content was not approved (git diffgate --strict)", branch, short(u.New)).
		WithHint("%s", "to commit: stage the change, run 'git diffgate' in a terminal, then commit\n"+
			"to move "+branch+" to commits that exist (a rebase, a fast-forward, a pull whose commits\n"+
			"are not approvals signed by allowed_signers keys), review the move:\n"+
			"  git diffgate review --branch "+branch+" --to "+short(u.New)+"\n"+
			"then repeat what you did, or run 'git rebase --continue' if a rebase stopped here")
}
