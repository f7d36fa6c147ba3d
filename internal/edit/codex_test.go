package edit

import (
	"testing"
)

// Codex's apply_patch: each @@ section is a block (context and '-' lines the
// FIND, context and '+' lines the REPLACE), "@@ <line>" an anchor, Add and
// Delete File whole-file blocks.
func TestParseCodex(t *testing.T) {
	tests := []parseCase{
		{"add, update and delete",
			"*** Begin Patch\n*** Add File: pkg/hello.py\n+def hello():\n+    return 1\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n*** Delete File: obsolete.txt\n*** End Patch\n",
			`codex add "pkg/hello.py" find="" repl="def hello():|    return 1"
codex  "src/app.py" find="    print(\"Hi\")" repl="    print(\"Hello\")" anchors=["def greet():"]
codex delete "obsolete.txt" find="" repl=""`},
		{"two sections, anchors on two levels, a blank context line",
			"*** Begin Patch\n*** Update File: m.py\n@@ class A:\n@@     def f(self):\n         x = 1\n\n-        return x\n+        return x + 1\n@@\n a = 1\n-b = 2\n+b = 3\n*** End Patch",
			`codex  "m.py" find="        x = 1||        return x" repl="        x = 1||        return x + 1" anchors=["class A:" "def f(self):"]
codex  "m.py" find="a = 1|b = 2" repl="a = 1|b = 3"`},
		{"the first section without its @@; End of File",
			"*** Begin Patch\n*** Update File: m.py\n import os\n+import sys\n@@\n last = 1\n-end = 2\n+end = 3\n*** End of File\n*** End Patch\n",
			`codex  "m.py" find="import os" repl="import os|import sys"
codex  "m.py" find="last = 1|end = 2" repl="last = 1|end = 3" eof`},
		{"only added lines: at the end with End of File, after an anchor, or nowhere",
			"*** Begin Patch\n*** Update File: m.py\n@@\n+tail = 1\n*** End of File\n@@ class A:\n+    x = 1\n@@\n+where = 0\n*** End Patch\n",
			`codex  "m.py" find="" repl="tail = 1" eof
codex  "m.py" find="" repl="    x = 1" anchors=["class A:"]
codex  "m.py" find="" repl="where = 0"`},
		{"a context line with *** in it is content",
			"*** Begin Patch\n*** Update File: m.md\n@@\n  *** note ***\n-a\n+b\n   *** End Patch\n",
			`codex  "m.md" find=" *** note ***|a" repl=" *** note ***|b"`},
		{"indented markers, no envelope, in a fence",
			"```\n  *** Update File: m.py\n@@ -3,2 +3,2 @@\n a\n-b\n+c\n```\n",
			`codex  "m.py" find="a|b" repl="a|c" at=-3+3`},
	}
	checkParses(t, tests)
}

func TestParseCodexErrors(t *testing.T) {
	tests := []parseErrorCase{
		{"no End Patch", "*** Begin Patch\n*** Update File: m.py\n@@\n-a\n+b\n", "without *** End Patch", true},
		{"a move", "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-a\n+b\n*** End Patch\n", "Move to", false},
		{"an update without sections", "*** Begin Patch\n*** Update File: a.py\n*** End Patch\n", "no @@ section", false},
		{"a stray line", "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\nprose in the middle\n*** End Patch\n", "in a Codex patch", false},
		{"an Add File line without its +", "*** Begin Patch\n*** Add File: a.py\n+a\nb\n*** End Patch\n", "in a Codex patch", false},
		{"a section that changes nothing", "*** Begin Patch\n*** Update File: a.py\n@@\n a\n*** End Patch\n", "changes nothing", false},
	}
	checkParseErrors(t, tests)
}

func FuzzParseCodex(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n@@ def f():\n a\n-b\n+c\n*** End of File\n*** Delete File: c\n*** End Patch\n")
	f.Add("*** Update File: m.py\n import os\n+import sys\n")
	f.Fuzz(func(t *testing.T, in string) {
		bs, err := ParseBlocksAs(in, FormatCodex)
		if err == nil && len(bs) == 0 {
			t.Fatal("no error and no blocks")
		}
		for _, b := range bs {
			if b.Format != FormatCodex || b.File == "" {
				t.Fatalf("format %q file %q", b.Format, b.File)
			}
		}
		ApplyAll(Parse([]byte("a\nb\nc\nd\n")), "f", bs) // never panics
	})
}
