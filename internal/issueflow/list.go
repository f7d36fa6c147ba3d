package issueflow

import (
	"sort"
	"time"

	"github.com/git-tdd/git-tdd/internal/fsafe"
	"github.com/git-tdd/git-tdd/internal/state"
)

// Summary is one workflow as git tdd issue list shows it.
type Summary struct {
	Slug     string    `json:"slug"`
	Node     string    `json:"node"`
	Step     string    `json:"step"` // the node as seed 004 numbers it
	Drafts   int       `json:"drafts"`
	Verdicts int       `json:"verdicts"`
	Dir      string    `json:"dir"`
	Worktree string    `json:"worktree"`
	Number   int       `json:"number,omitempty"`
	URL      string    `json:"url,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	Updated  time.Time `json:"updated,omitzero"`
	// InState is false for a folder state.toml does not know: resume
	// rebuilds its entry from the files.
	InState bool `json:"in_state"`
}

// List summarises the workflows state.toml knows, reading where each stands
// from its folder when it is in this working tree (top, opened as tree), and
// adds the active folders here that the state does not know.
func List(st *state.State, top string, tree *fsafe.Tree) []Summary {
	var out []Summary
	seen := map[string]bool{}
	for _, d := range st.SortedIssues() {
		s := Summary{Slug: d.Slug, Node: d.Node, Drafts: d.Drafts, Verdicts: d.Verdicts, Dir: d.Dir, Worktree: d.Worktree,
			Number: d.Number, URL: d.URL, Commit: d.Commit, Updated: d.Updated, InState: true}
		if !d.Done() && fsafe.SamePath(d.Worktree, top) {
			seen[d.Slug] = true
			if names, ok, err := tree.ReadDir(d.Dir); ok && err == nil {
				if pos, err := PositionOf(names); err == nil {
					s.Node, s.Drafts, s.Verdicts = string(pos.Node), pos.Drafts, pos.Verdicts
				}
			}
		}
		s.Step = Node(s.Node).Label()
		out = append(out, s)
	}
	names, _, _ := tree.ReadDir(ActiveDir)
	sort.Strings(names)
	for _, slug := range names {
		if seen[slug] || st.Issues[slug] != nil && !st.Issues[slug].Done() {
			continue
		}
		files, ok, err := tree.ReadDir(ActiveDir + "/" + slug)
		if !ok || err != nil {
			continue
		}
		pos, err := PositionOf(files)
		if err != nil {
			continue
		}
		out = append(out, Summary{Slug: slug, Node: string(pos.Node), Step: pos.Node.Label(), Drafts: pos.Drafts,
			Verdicts: pos.Verdicts, Dir: ActiveDir + "/" + slug, Worktree: top})
	}
	return out
}
