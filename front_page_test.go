package gittdd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The front page's two walk-throughs, their sh blocks pasted in order as they
// are: the 60-second tour (hooks installed, an agent's commit refused without a
// terminal, a human's APPROVE, the commit with its trailer, verify) and the
// 5-minute TDD cycle (start, red, green, merge). ttyrun answers each question on
// a real pseudo-terminal, as the human does.
func TestFrontPage(t *testing.T) {
	tour := markedBlocks(t, "README.md", "front page tour")
	tdd := markedBlocks(t, "README.md", "front page TDD walk-through")
	if len(tour) < 3 || len(tdd) < 5 {
		t.Fatalf("the tour has %d sh blocks, the TDD walk-through %d: want 3 and 5", len(tour), len(tdd))
	}
	dir := t.TempDir()
	scripts := map[string]string{
		"tour.txtar": `# README.md's 60-second tour (front_page_test.go writes this)
[!exec:setsid] skip 'needs setsid'
# git log on the terminal would page
env GIT_PAGER=cat
exec ttyrun -timeout 120s 'Type APPROVE to continue or REJECT to abort' 'APPROVE\n' -- sh -e $WORK/tour.sh
stdout 'pre-commit +installed'
stdout 'WARNING: 100% of state.py was changed'
stdout 'there is no terminal to ask a human for approval'
stdout 'refused: exit 1'
stdout 'Approved tree [0-9a-f]{12} on commit [0-9a-f]{12}'
stdout 'state: simplify\r?\n\r?\nDiffgate-Approved: \S+ tree=[0-9a-f]{40}'
stdout 'The commit in HEAD~1..HEAD carries an approval of its own tree.'
-- tour.sh --
` + strings.Join(tour, ""),
		"tdd.txtar": `# README.md's 5-minute TDD walk-through (front_page_test.go writes this)
[!exec:pytest] [!env:GIT_TDD_REQUIRE_PYTEST] skip 'needs pytest (apt-get install python3-pytest)'
[!sandbox] [!env:GIT_TDD_REQUIRE_SANDBOX] skip 'this machine cannot confine test runs (Landlock ABI 3, seccomp)'
env GIT_PAGER=cat
exec ttyrun -timeout 300s 'Type APPROVE to merge #1 into main' 'APPROVE\n' -- sh -e $WORK/tdd.sh
stdout 'red: 1 test file of this branch cannot import what it tests yet'
stdout 'test\(#1\): red — 1 failing'
stdout 'green: 2 tests pass'
stdout 'merged #1 into main'
stdout '\*   Merge #1: Multiply\r?\n\|\\\s*\r?\n\| \* feat\(#1\): green — 2 passing\r?\n\| \* test\(#1\): red — 1 failing\r?\n\|/\s*\r?\n\* calc: add'
! stdout 'git-tdd: error'
-- tdd.sh --
` + strings.Join(tdd, ""),
	}
	for name, script := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testscript.Run(t, scriptParams(dir))
}
