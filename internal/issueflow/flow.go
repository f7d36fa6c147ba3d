package issueflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/git-tdd/git-tdd/internal/config"
	"github.com/git-tdd/git-tdd/internal/exitcode"
	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/state"
	"github.com/git-tdd/git-tdd/internal/term"
)

// Where the audit folders live, relative to the working tree's top (seed 004).
const (
	ActiveDir = "docs/audit/active"
	DoneDir   = "docs/audit/done"
)

// MaxFile bounds a brief, draft, verdict or feedback: issues are kilobytes.
const MaxFile = 1 << 20

// Asker is the human at the terminal: every decision of the workflow is theirs.
type Asker interface {
	Choose(ctx context.Context, question string, choices []term.Choice) (string, error)
	Line(ctx context.Context, question string) (string, error)
	Writer() io.Writer
}

// Opener opens files for the human and returns once they are closed.
type Opener interface {
	Edit(ctx context.Context, files ...string) error
}

// Model answers a prompt: the drafter, or the reviewer.
type Model func(ctx context.Context, prompt string) ([]byte, error)

// Filer is what N6 asks of GitHub.
type Filer interface {
	Labels(ctx context.Context) ([]string, error)
	CreateLabel(ctx context.Context, name string) error
	CreateIssue(ctx context.Context, title string, body []byte, labels []string) (int, string, error)
	FindIssue(ctx context.Context, title string, body []byte) (int, string, bool, error)
	ViewIssue(ctx context.Context, n int) (Issue, bool, error)
}

// Flow is one run of git tdd issue over one workflow.
type Flow struct {
	Ctx   context.Context
	Repo  *gitx.Repo   // the working tree that holds the audit folder
	Tree  *fsafe.Tree  // the same, opened so that nothing is written outside it or into .git
	Store *state.Store // state.toml and audit.jsonl
	Cfg   config.Issue
	// Template is what the drafter follows; ReviewPrompt is the review
	// prompt as committed (seed 004: hard-coded, never from the command line).
	Template, ReviewPrompt string
	Human                  Asker
	Editor                 Opener
	Drafter, Reviewer      Model
	GitHub                 Filer
	Repository             string // what the issue is filed in, for the record: [issue] repo, or gh's choice
	Sign                   bool   // sign the audit commit (commit.gpgsign)
	Out, Err               io.Writer

	slug string
	dir  string // the audit folder, relative to Repo.Top
	// wrote are the audit files this run wrote, or the human sent, as they
	// were then: after a resume the others could have been written by anyone.
	wrote map[string][]byte
	// filed are the audit files as the human approved filing them (and the
	// record), and filedRecord what gh answered: the commit takes these, not
	// whatever is on disk later.
	filed       map[string][]byte
	filedRecord *Filed
}

// errStopped ends a run that a human stopped for manual handling: the folder
// keeps everything, and resume continues at the same gate.
var errStopped = errors.New("stopped for manual handling")

// Start is N0 for a new brief: the workflow gets its audit folder and
// 001-brief.md. A name in use asks [R]esume / [N]ew name / [A]bort.
func (f *Flow) Start(briefPath string, brief []byte, slug string) error {
	st, err := f.Store.Load()
	if err != nil {
		return err
	}
	for f.inUse(st, slug) {
		fmt.Fprintf(f.Human.Writer(), "Slug '%s' already exists in %s/\n", slug, ActiveDir)
		choice, err := f.Human.Choose(f.Ctx, "[R]esume existing / [N]ew name / [A]bort?", []term.Choice{
			{Word: "resume", Aliases: []string{"r"}}, {Word: "new", Aliases: []string{"n"}}, {Word: "abort", Aliases: []string{"a"}}})
		if err != nil {
			return f.noAnswer(err, "nothing was changed")
		}
		switch choice {
		case "abort":
			fmt.Fprintf(f.Out, "aborted: nothing was changed\n")
			return nil
		case "resume":
			return f.Resume(slug)
		}
		if slug, err = f.askSlug(); err != nil {
			return err
		}
	}
	release, err := f.hold(slug)
	if err != nil {
		return err
	}
	defer release()
	if st, err = f.Store.Load(); err != nil {
		return err
	}
	if f.inUse(st, slug) { // started by another process since the check
		return exitcode.New(exitcode.Usage, "the issue workflow %s was just started by another git tdd issue", slug).
			WithHint("git tdd issue resume %s", slug)
	}
	f.slug, f.dir, f.wrote = slug, ActiveDir+"/"+slug, map[string][]byte{}
	if err := f.checkDirs(); err != nil {
		return err
	}
	if err := f.save(FileName(1, KindBrief), brief); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	err = f.Store.Update(f.Ctx, func(st *state.State) error {
		if st.Issues == nil {
			st.Issues = map[string]*state.Drafting{}
		}
		st.Issues[slug] = &state.Drafting{Slug: slug, Brief: state.CleanPath(briefPath), Worktree: f.Repo.Top, Dir: f.dir,
			Node: string(NodeDraft), Started: now, Updated: now}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "N0: %s saved as %s/%s\n", term.Path(briefPath), term.Path(f.dir), FileName(1, KindBrief))
	return f.run()
}

// inUse reports whether a workflow of that name is in progress.
func (f *Flow) inUse(st *state.State, slug string) bool {
	if d := st.Issues[slug]; d != nil && !d.Done() {
		return true
	}
	_, err := f.Tree.Stat(ActiveDir + "/" + slug)
	return err == nil
}

// askSlug is N0's [N]ew name: a name that is valid; whether it is free is
// checked by the caller.
func (f *Flow) askSlug() (string, error) {
	for i := 0; i < 3; i++ {
		s, err := f.Human.Line(f.Ctx, "Enter new slug:")
		if err != nil {
			return "", f.noAnswer(err, "nothing was changed")
		}
		if err := CheckSlug(s); err != nil {
			fmt.Fprintf(f.Human.Writer(), "%v\n", err)
			continue
		}
		return s, nil
	}
	return "", f.noAnswer(term.ErrNoAnswer, "nothing was changed")
}

// Resume continues a workflow where it stopped: the audit folder says where.
func (f *Flow) Resume(slug string) error {
	release, err := f.hold(slug)
	if err != nil {
		return err
	}
	defer release()
	st, err := f.Store.Load()
	if err != nil {
		return err
	}
	f.slug, f.dir, f.wrote = slug, ActiveDir+"/"+slug, map[string][]byte{}
	d := st.Issues[slug]
	if d != nil && validDir(d.Dir, slug) {
		f.dir = d.Dir
	}
	if d != nil && d.Done() {
		fmt.Fprintln(f.Out, DoneMessage(d))
		return nil
	}
	if err := f.checkDirs(); err != nil {
		return err
	}
	if _, ok, err := f.Tree.ReadDir(f.dir); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("no issue workflow %q: %s does not exist", slug, f.dir)
		}
		return exitcode.With(exitcode.Usage, err).WithHint("git tdd issue list shows the workflows; git tdd issue new <brief.md> starts one")
	}
	pos, err := f.position()
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Err, "resuming %s at %s (%s)\n", slug, pos.Node.Label(), term.Path(f.dir))
	return f.run()
}

// validDir accepts only the folders a workflow can have: state.toml is a
// cache anyone could edit, and a folder it names is moved and committed.
func validDir(dir, slug string) bool {
	if dir == ActiveDir+"/"+slug {
		return true
	}
	rest, ok := strings.CutPrefix(dir, DoneDir+"/")
	num, name, _ := strings.Cut(rest, "-")
	_, err := strconv.Atoi(num)
	return ok && err == nil && name == slug
}

// DoneMessage says what became of a workflow that is done.
func DoneMessage(d *state.Drafting) string {
	return fmt.Sprintf("%s was filed as #%d (%s); its audit files are in %s (commit %s)", d.Slug, d.Number, d.URL, term.Path(d.Dir), short(d.Commit))
}

// hold takes the workflow's lock for the run: one process per workflow.
func (f *Flow) hold(slug string) (func(), error) {
	release, err := f.Store.Hold("issue-" + slug)
	if errors.Is(err, state.ErrHeld) {
		return nil, exitcode.New(exitcode.Usage, "the issue workflow %s is being run by another git tdd issue", slug).
			WithHint("finish it there, or wait until that command ends")
	}
	return release, err
}

// run moves through the graph until the issue is filed or a human stops.
func (f *Flow) run() error {
	for {
		pos, err := f.position()
		if err != nil {
			return err
		}
		if err := f.note(pos); err != nil {
			return err
		}
		switch pos.Node {
		case NodeDraft:
			if err = f.draft(pos); err == nil {
				err = f.advanced(pos)
			}
		case NodeEditDraft:
			err = f.draftGate(pos)
		case NodeEditVerdict:
			err = f.verdictGate(pos)
		case NodeFiled:
			return f.finish(pos)
		}
		if errors.Is(err, errStopped) {
			fmt.Fprintf(f.Out, "stopped for manual handling at %s: %s/ keeps every file\ncontinue with: git tdd issue resume %s\n",
				pos.Node.Label(), term.Path(f.dir), f.slug)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// advanced checks that a new draft made the workflow move on: a folder whose
// files the workflow cannot order would otherwise ask the drafter forever.
func (f *Flow) advanced(before Position) error {
	after, err := f.position()
	if err == nil && after.Drafts != before.Drafts+1 {
		err = exitcode.New(exitcode.Usage, "%s: the draft just saved is not the workflow's latest file; nothing more is asked for", f.dir)
	}
	return err
}

// position reads where the workflow stands from its audit folder.
func (f *Flow) position() (Position, error) {
	names, ok, err := f.Tree.ReadDir(f.dir)
	if err == nil && !ok {
		err = fmt.Errorf("%s does not exist", f.dir)
	}
	if err != nil {
		return Position{}, err
	}
	pos, err := PositionOf(names)
	if err != nil {
		return pos, exitcode.With(exitcode.Usage, fmt.Errorf("%s: %w", f.dir, err))
	}
	return pos, nil
}

// note caches where the workflow stands in state.toml, for git tdd issue list.
func (f *Flow) note(pos Position) error {
	return f.update(func(d *state.Drafting) {
		d.Node, d.Drafts, d.Verdicts = string(pos.Node), pos.Drafts, pos.Verdicts
	})
}

// update changes the workflow's entry in state.toml, making one (from what
// the folder says) when the state file lost it.
func (f *Flow) update(fn func(d *state.Drafting)) error {
	return f.Store.Update(f.Ctx, func(st *state.State) error {
		if st.Issues == nil {
			st.Issues = map[string]*state.Drafting{}
		}
		d := st.Issues[f.slug]
		now := time.Now().UTC().Truncate(time.Second)
		if d == nil {
			d = &state.Drafting{Slug: f.slug, Started: now}
			st.Issues[f.slug] = d
		}
		d.Worktree, d.Dir, d.Updated = f.Repo.Top, f.dir, now
		fn(d)
		return nil
	})
}

// read reads an audit file.
func (f *Flow) read(name string) ([]byte, error) {
	rel := f.dir + "/" + name
	data, _, ok, err := f.Tree.ReadFile(rel)
	if err == nil && !ok {
		err = fmt.Errorf("%s is missing", rel)
	}
	if err == nil && len(data) > MaxFile {
		err = fmt.Errorf("%s is larger than %d bytes", rel, MaxFile)
	}
	return data, err
}

// write saves the next audit file.
func (f *Flow) write(n int, kind Kind, data []byte) (string, error) {
	name := FileName(n, kind)
	return name, f.save(name, data)
}

// save writes an audit file this run vouches for.
func (f *Flow) save(name string, data []byte) error {
	if err := f.Tree.Write(f.dir+"/"+name, data); err != nil {
		return err
	}
	f.wrote[name] = data
	return nil
}

// checkDirs refuses audit folders reached through a symlink: the folder is
// moved and committed, and must be where its name says.
func (f *Flow) checkDirs() error {
	for _, d := range []string{f.dir, DoneDir} {
		err := f.Tree.NoSymlinks(d)
		var pe *fsafe.PathError
		if errors.As(err, &pe) {
			return exitcode.With(exitcode.Usage, fmt.Errorf("%s is a symlink; the audit folders must be real directories, nothing was read or written", term.Path(pe.Path))).
				WithHint("replace the symlink %s with a directory", term.Path(pe.Path))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// noAnswer turns a prompt that got no answer into the command's error: no
// terminal is exit 3, three invalid answers a refusal, an interrupt 130.
func (f *Flow) noAnswer(err error, kept string) error {
	switch {
	case errors.Is(err, term.ErrNoAnswer):
		return exitcode.New(exitcode.Refused, "no answer; %s", kept).WithHint("git tdd issue resume %s continues from here", f.slugOr())
	case errors.Is(err, term.ErrNoTerminal):
		return exitcode.With(exitcode.HumanRequired, err).WithHint("run it in a terminal")
	}
	return err
}

func (f *Flow) slugOr() string {
	if f.slug == "" {
		return "<slug>"
	}
	return f.slug
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// sameFile reports whether an audit file still holds data: what the human
// decided on is what goes on.
func (f *Flow) sameFile(name string, data []byte) bool {
	now, err := f.read(name)
	return err == nil && string(now) == string(data)
}
