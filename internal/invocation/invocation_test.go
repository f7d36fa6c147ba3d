package invocation

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	aliases := map[string]string{
		"ci":    "commit",
		"cis":   "commit -S",
		"nosig": "commit --no-gpg-sign",
		"loop":  "loop",
		"sh":    "!git commit -S",
		"q":     `commit -m "a b"`,
		"open":  `commit -m "a b`,
		"two":   "ci --amend",
	}
	lookup := func(name string) (string, bool) {
		v, ok := aliases[name]
		return v, ok
	}
	unknown := Intent{}
	tests := []struct {
		name string
		argv []string
		want Intent
	}{
		{"plain", []string{"git", "commit", "-m", "x"}, Intent{Known: true, Command: "commit"}},
		{"path of git", []string{"/usr/bin/git", "commit"}, Intent{Known: true, Command: "commit"}},
		{"-S", []string{"git", "commit", "-S", "-m", "x"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"-S with a key", []string{"git", "commit", "-SABCDEF"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"bundled", []string{"git", "commit", "-qS"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"bundled value", []string{"git", "commit", "-am", "-S"}, Intent{Known: true, Command: "commit"}},
		{"message that looks like -S", []string{"git", "commit", "-m", "-S"}, Intent{Known: true, Command: "commit"}},
		{"message that looks like --no-gpg-sign", []string{"git", "commit", "-m", "--no-gpg-sign"}, Intent{Known: true, Command: "commit"}},
		{"stuck message", []string{"git", "commit", "-m--no-gpg-sign"}, Intent{Known: true, Command: "commit"}},
		{"long message", []string{"git", "commit", "--message", "--no-gpg-sign"}, Intent{Known: true, Command: "commit"}},
		{"abbreviated long message", []string{"git", "commit", "--mess", "--no-gpg-sign"}, Intent{Known: true, Command: "commit"}},
		{"--gpg-sign", []string{"git", "commit", "--gpg-sign"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"--gpg-sign=key", []string{"git", "commit", "--gpg-sign=ABC"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"--gpg", []string{"git", "commit", "--gpg"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"--no-gpg-sign", []string{"git", "commit", "--no-gpg-sign"}, Intent{Known: true, Command: "commit", Sign: -1}},
		{"--no-gpg", []string{"git", "commit", "--no-gpg"}, Intent{Known: true, Command: "commit", Sign: -1}},
		{"last wins", []string{"git", "commit", "--no-gpg-sign", "-S"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"last wins again", []string{"git", "commit", "-S", "--no-gpg-sign"}, Intent{Known: true, Command: "commit", Sign: -1}},
		{"optional value is not the next argument", []string{"git", "commit", "--gpg-sign", "--no-gpg-sign"}, Intent{Known: true, Command: "commit", Sign: -1}},
		{"amend", []string{"git", "commit", "--amend", "--no-edit"}, Intent{Known: true, Command: "commit", Amend: true}},
		{"amend abbreviated", []string{"git", "commit", "--amen"}, Intent{Known: true, Command: "commit", Amend: true}},
		{"no-verify", []string{"git", "commit", "-n"}, Intent{Known: true, Command: "commit", NoVerify: true}},
		{"no-verify long", []string{"git", "commit", "--no-verify"}, Intent{Known: true, Command: "commit", NoVerify: true}},
		{"verify again", []string{"git", "commit", "--no-verify", "--verify"}, Intent{Known: true, Command: "commit"}},
		{"after --", []string{"git", "commit", "--", "-S"}, Intent{Known: true, Command: "commit"}},
		{"paths", []string{"git", "commit", "a.txt", "-S"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"ambiguous", []string{"git", "commit", "--s"}, unknown},
		{"unknown long option", []string{"git", "commit", "--frobnicate"}, unknown},
		{"unknown short option", []string{"git", "commit", "-Z"}, unknown},
		{"value missing", []string{"git", "commit", "-m"}, unknown},
		{"global options", []string{"git", "-C", "dir", "-c", "commit.gpgsign=false", "--no-pager", "--git-dir=.git", "commit", "-S"}, Intent{Known: true, Command: "commit", Sign: 1}},
		{"global separate", []string{"git", "--work-tree", "w", "commit"}, Intent{Known: true, Command: "commit"}},
		{"unknown global option", []string{"git", "--frob", "commit"}, unknown},
		{"no command", []string{"git", "-c", "a=b"}, unknown},
		{"dashed", []string{"git-commit", "--no-gpg-sign"}, Intent{Known: true, Command: "commit", Sign: -1}},
		{"merge -S", []string{"git", "merge", "--no-ff", "-S", "feature"}, Intent{Known: true, Command: "merge", Sign: 1}},
		{"merge -s strategy", []string{"git", "merge", "-s", "ours", "feature"}, Intent{Known: true, Command: "merge"}},
		{"merge -n is not no-verify", []string{"git", "merge", "-n", "feature"}, Intent{Known: true, Command: "merge"}},
		{"merge --no-verify", []string{"git", "merge", "--no-verify", "feature"}, Intent{Known: true, Command: "merge", NoVerify: true}},
		{"merge --no-gpg-sign", []string{"git", "merge", "--no-gpg-sign", "feature"}, Intent{Known: true, Command: "merge", Sign: -1}},
		{"rebase -S", []string{"git", "rebase", "-S", "main"}, Intent{Known: true, Command: "rebase", Sign: 1}},
		{"rebase --gpg-sign=k", []string{"git", "rebase", "--gpg-sign=k", "main"}, Intent{Known: true, Command: "rebase", Sign: 1}},
		{"rebase's --no-gpg-sign is not trusted", []string{"git", "rebase", "--no-gpg-sign", "main"}, Intent{Known: true, Command: "rebase"}},
		{"cherry-pick", []string{"git", "cherry-pick", "abc"}, Intent{Known: true, Command: "cherry-pick"}},
		{"alias", []string{"git", "ci", "-m", "x"}, Intent{Known: true, Command: "commit", Aliased: true}},
		{"alias with -S", []string{"git", "cis"}, Intent{Known: true, Command: "commit", Sign: 1, Aliased: true}},
		{"alias with --no-gpg-sign", []string{"git", "nosig"}, Intent{Known: true, Command: "commit", Sign: -1, Aliased: true}},
		{"alias of an alias", []string{"git", "two"}, Intent{Known: true, Command: "commit", Amend: true, Aliased: true}},
		{"quoted alias", []string{"git", "q"}, Intent{Known: true, Command: "commit", Aliased: true}},
		{"unclosed quote", []string{"git", "open"}, unknown},
		{"alias loop", []string{"git", "loop"}, unknown},
		{"shell alias", []string{"git", "sh"}, unknown},
		{"no such command", []string{"git", "frob"}, unknown},
		{"not git", []string{"lefthook", "run"}, unknown},
		{"empty", nil, unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.argv, lookup); got != tt.want {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.argv, got, tt.want)
			}
		})
	}
}

func TestSplitCommandLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"commit -S", []string{"commit", "-S"}, true},
		{"  commit\t-m  'a b' ", []string{"commit", "-m", "a b"}, true},
		{`commit -m "a \"b\""`, []string{"commit", "-m", `a "b"`}, true},
		{`commit -m 'a\b'`, []string{"commit", "-m", `a\b`}, true},
		{`commit -m a\ b`, []string{"commit", "-m", "a b"}, true},
		{`commit -m ''`, []string{"commit", "-m", ""}, true},
		{`commit "x`, nil, false},
		{`commit x\`, nil, false},
	}
	for _, tt := range tests {
		got, ok := SplitCommandLine(tt.in)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommandLine(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFindGit(t *testing.T) {
	procs := map[int]processInfo{
		10: {ppid: 9, argv: []string{"/usr/bin/git-diffgate", "hook", "pre-commit"}},
		9:  {ppid: 8, argv: []string{"sh", "-c", "git-diffgate hook pre-commit"}},
		8:  {ppid: 7, argv: []string{"lefthook", "run", "pre-commit"}},
		7:  {ppid: 1, argv: []string{"git", "commit", "-S"}},
		20: {ppid: 1, argv: []string{"sh"}},
		30: {ppid: 31, argv: []string{"git-lfs", "x"}},
		31: {ppid: 1, argv: []string{"/usr/lib/git-core/git-commit"}},
	}
	read := func(pid int) (processInfo, bool) {
		p, ok := procs[pid]
		return p, ok
	}
	if pid, argv, ok := findGit(10, read); !ok || pid != 7 || argv[2] != "-S" {
		t.Errorf("findGit(10) = %d, %q, %v", pid, argv, ok)
	}
	if _, _, ok := findGit(20, read); ok {
		t.Error("findGit(20) found a git where there is none")
	}
	if _, _, ok := findGit(99, read); ok {
		t.Error("findGit(99) found an unreadable process")
	}
	if pid, _, ok := findGit(30, read); !ok || pid != 31 {
		t.Errorf("findGit(30) = %d, %v: git-lfs is not git, git-commit is", pid, ok)
	}
}

func TestParseProcArgs2(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 3)
	b = append(b, "/usr/bin/git\x00\x00\x00\x00git\x00commit\x00-S\x00PATH=/bin\x00"...)
	got, ok := parseProcArgs2(b)
	if !ok || !reflect.DeepEqual(got, []string{"git", "commit", "-S"}) {
		t.Errorf("parseProcArgs2 = %q, %v", got, ok)
	}
	if _, ok := parseProcArgs2(b[:20]); ok {
		t.Error("a cut buffer parsed")
	}
}

func TestChangedSince(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "config")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Hour)
	after := time.Now().Add(time.Hour)
	if !ChangedSince([]string{f}, before) {
		t.Error("a file written after t is unchanged")
	}
	if ChangedSince([]string{f}, after) {
		t.Error("a file written before t changed")
	}
	// its times set back: the change time still tells
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(f, old, old); err != nil {
		t.Fatal(err)
	}
	if !ChangedSince([]string{f}, before) {
		t.Error("a file whose mtime was set back is unchanged")
	}
	missing := filepath.Join(dir, "gone")
	if !ChangedSince([]string{missing}, before) {
		t.Error("a missing file in a directory changed after t is unchanged")
	}
	if ChangedSince([]string{missing}, after) {
		t.Error("a missing file in an old directory changed")
	}
	if ChangedSince([]string{missing}, before, dir+"/") {
		t.Error("a missing file in a busy directory changed")
	}
	if ChangedSince([]string{filepath.Join(dir, "no", "such", "file")}, before) {
		t.Error("a file without a directory changed")
	}
}
