package diffgate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/git-tdd/git-tdd/internal/cmdline"
	"github.com/git-tdd/git-tdd/internal/commitmsg"
	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/term"
)

// VerifyCmd checks the approvals (and, where the configuration asks for them,
// the signatures) of a range of commits, for CI.
type VerifyCmd struct {
	Range string `arg:"" optional:"" placeholder:"RANGE" help:"The commits to check (default @{upstream}..HEAD), e.g. origin/main..HEAD."`
	JSON  bool   `name:"json" help:"Print the result as JSON."`
}

// CommitCheck is one commit as verify judged it.
type CommitCheck struct {
	Commit    string `json:"commit"`
	Subject   string `json:"subject"`
	OK        bool   `json:"ok"`
	Problem   string `json:"problem"`   // "" when it holds
	Signature string `json:"signature"` // git's %G?, when signatures are required
	Signer    string `json:"signer"`
}

// VerifyReport is what verify --json prints.
type VerifyReport struct {
	Range   string        `json:"range"`
	Signers string        `json:"signers"` // the allowed-signers file, as committed at the base; "" when signatures are not required
	Base    string        `json:"base"`
	Commits []CommitCheck `json:"commits"`
	Failed  int           `json:"failed"`
}

// Run checks every commit on the range's first-parent chain: a
// Diffgate-Approved trailer of its own tree and, when the configuration
// committed at the range's base names [diffgate] allowed_signers, a good SSH
// signature by a key in that file as committed there. Exit 1 when one fails.
func (c *VerifyCmd) Run(env *cmdline.Env) error {
	repo, err := env.Repo()
	if err != nil {
		return err
	}
	spec := c.Range
	if spec == "" {
		spec = "@{upstream}..HEAD"
	}
	if strings.HasPrefix(spec, "-") {
		return exitcode.New(exitcode.Usage, "invalid range %q", spec)
	}
	rangeError := func(err error) error {
		var e *exitcode.Error
		if !errors.As(err, &e) {
			e = exitcode.With(exitcode.Usage, err)
		}
		if c.Range == "" && e.Hint == "" {
			e.WithHint("name the commits to check, e.g. git diffgate verify origin/main..HEAD")
		}
		return e
	}
	rep := VerifyReport{Range: spec, Commits: []CommitCheck{}}
	signers, cleanup, err := allowedSigners(env, repo, spec, &rep)
	if err != nil {
		return rangeError(err)
	}
	defer cleanup()
	commits, err := repo.FirstParentSigned(env.Ctx, spec, signers)
	if err != nil {
		return rangeError(err)
	}
	messages, err := messagesOf(env, repo, commits)
	if err != nil {
		return err
	}
	for _, tc := range commits {
		problem := approvalProblem(tc.Tree, messages[tc.ID])
		if problem == "" && signers != "" {
			problem = signatureProblem(tc, rep.Signers)
		}
		rep.Commits = append(rep.Commits, CommitCheck{Commit: tc.ID, Subject: tc.Subject, OK: problem == "", Problem: problem, Signature: tc.Signature, Signer: tc.Signer})
		if problem != "" {
			rep.Failed++
		}
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printVerify(env, rep)
	}
	if rep.Failed > 0 {
		what := "an approval of their own tree"
		if signers != "" {
			what += " signed by an allowed key"
		}
		return exitcode.New(exitcode.Refused, "%d of %d commits in %s lack %s", rep.Failed, len(commits), spec, what).
			WithHint("%s", trailerHint(env, repo))
	}
	return nil
}

// allowedSigners writes the allowed-signers file named by the configuration
// committed at the range's base to a temporary file, and returns its path ("" when
// signatures are not required). A range without a base cannot be checked for
// signatures: it could bring its own key.
func allowedSigners(env *cmdline.Env, repo *gitx.Repo, spec string, rep *VerifyReport) (string, func(), error) {
	none := func() {}
	left, _, ranged := strings.Cut(spec, "..")
	rev := strings.TrimSuffix(left, ".")
	if !ranged || rev == "" {
		cfg, err := env.Config(repo, "HEAD")
		if err != nil || cfg.Diffgate.AllowedSigners == "" {
			return "", none, err
		}
		return "", none, exitcode.New(exitcode.Usage, "[diffgate] allowed_signers is set: signatures are checked against the file committed at the range's base, and %q has none", spec).
			WithHint("name a range, e.g. git diffgate verify origin/main..HEAD")
	}
	base, err := repo.ResolveCommit(env.Ctx, rev)
	if err != nil {
		return "", none, exitcode.With(exitcode.Usage, err)
	}
	path, name, cleanup, err := signersAt(env, repo, base)
	if path != "" {
		rep.Signers, rep.Base = name, base
	}
	return path, cleanup, err
}

// signersAt writes the allowed-signers file that the configuration committed
// at base names to a temporary file: its path ("" when base's configuration
// names none) and the name it has in the repository.
func signersAt(env *cmdline.Env, repo *gitx.Repo, base string) (path, name string, cleanup func(), err error) {
	none := func() {}
	cfg, err := env.Config(repo, base)
	if err != nil || cfg.Diffgate.AllowedSigners == "" {
		return "", "", none, err
	}
	data, ok, err := repo.FileAt(env.Ctx, base, cfg.Diffgate.AllowedSigners)
	if err != nil {
		return "", "", none, err
	}
	if !ok {
		return "", "", none, exitcode.New(exitcode.Usage, "%s names allowed_signers = %q, which %s does not have", config.FileName, cfg.Diffgate.AllowedSigners, short(base))
	}
	f, err := os.CreateTemp("", "git-diffgate-signers-*")
	if err != nil {
		return "", "", none, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", "", none, err
	}
	f.Close()
	return f.Name(), cfg.Diffgate.AllowedSigners, func() { os.Remove(f.Name()) }, nil
}

// signatureProblem says what is wrong with a commit's signature, or "".
func signatureProblem(c gitx.TrailedCommit, signers string) string {
	switch c.Signature {
	case "G":
		// git's G for an OpenPGP or X.509 signature means a key the local
		// keyring trusts (any key its owner made), not one of the file:
		// only an SSH key (fingerprint SHA256:…) is checked against it
		if !strings.HasPrefix(c.Key, "SHA256:") {
			return fmt.Sprintf("signed with a key that is not an SSH key of %s (%s)", orFile(signers), c.Key)
		}
		return ""
	case "N":
		return "not signed"
	case "U":
		return fmt.Sprintf("signed by a key that is not in %s (%s)", signers, c.Key)
	case "B":
		return "a bad signature"
	case "X", "Y":
		return "signed by an expired key"
	case "R":
		return "signed by a revoked key"
	}
	return "its signature cannot be checked (" + c.Signature + ")"
}

func orFile(signers string) string {
	if signers == "" {
		return "the allowed-signers file"
	}
	return signers
}

// messagesOf reads the messages of commits from their objects.
func messagesOf(env *cmdline.Env, repo *gitx.Repo, commits []gitx.TrailedCommit) (map[string]string, error) {
	ids := make([]string, len(commits))
	for i, c := range commits {
		ids[i] = c.ID
	}
	found, err := repo.Commits(env.Ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(found))
	for id, c := range found {
		out[id] = c.Message
	}
	return out, nil
}

// approvalProblem says why a commit of tree with message msg is not an
// approved commit of a protected branch, or "" (DESIGN §1, §4): its
// message's final trailer block holds exactly one Diffgate-Approved trailer,
// well formed, of the commit's own tree, and the commit is not one git tdd
// wrote as a gate (TDD-Phase), whose trailers an agent's test ids once wrote:
// a gate commit lands only inside an approved git tdd merge, which approves it
// with the rest of its branch.
func approvalProblem(tree, msg string) string {
	if phase := commitmsg.Phase(msg); phase != "" {
		return fmt.Sprintf("a git tdd gate commit (%s: %s), which lands only through an approved git tdd merge", commitmsg.PhaseKey, phase)
	}
	a, err := commitmsg.ParseApproval(msg)
	if err != nil {
		return err.Error()
	}
	if a.Tree != tree {
		return fmt.Sprintf("its trailer approves tree %s, but the commit's tree is %s", short(a.Tree), short(tree))
	}
	return ""
}

func printVerify(env *cmdline.Env, rep VerifyReport) {
	for _, c := range rep.Commits {
		if !c.OK {
			fmt.Fprintf(env.Stdout, "%s %s: %s\n", short(c.Commit), term.Line(c.Subject, 80), c.Problem)
		}
	}
	if rep.Failed > 0 {
		return
	}
	what := "an approval of its own tree"
	if rep.Signers != "" {
		what += fmt.Sprintf(", signed by a key in %s as committed at %s", rep.Signers, short(rep.Base))
	}
	switch len(rep.Commits) {
	case 0:
		fmt.Fprintf(env.Stdout, "No commits in %s.\n", rep.Range)
	case 1:
		fmt.Fprintf(env.Stdout, "The commit in %s carries %s.\n", rep.Range, what)
	default:
		fmt.Fprintf(env.Stdout, "All %d commits in %s carry %s.\n", len(rep.Commits), rep.Range, strings.Replace(what, "its own", "their own", 1))
	}
}

// trailerHint says what gives a commit its trailer. Where no hook of the gate
// runs here, an APPROVE before a plain git commit adds none: the user did
// what the usual hint says, so it names what is missing instead.
func trailerHint(env *cmdline.Env, repo *gitx.Repo) string {
	const usual = "a commit gets its trailer when it is approved with git diffgate before it is committed, and its signature from commit.gpgsign"
	h, err := hooksStatus(env, repo)
	if err != nil || h.Installed || len(h.Managers) > 0 {
		return usual
	}
	return "no git diffgate hook is installed in this repository, so git commit adds no trailer even after an APPROVE: run git diffgate install, then approve and commit again (git commit --amend for the last commit)"
}
