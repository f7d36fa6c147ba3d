package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// tree is a file system for Readable: directories end in "/", symbolic links
// are "name -> target".
func tree(paths ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for _, p := range paths {
		switch {
		case strings.Contains(p, " -> "):
			name, target, _ := strings.Cut(p, " -> ")
			m[name] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
		case strings.HasSuffix(p, "/"):
			m[strings.TrimSuffix(p, "/")] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		default:
			m[p] = &fstest.MapFile{Data: []byte("x")}
		}
	}
	return m
}

// readDirOf lists a directory of m as os.ReadDir lists one of the machine's.
func readDirOf(m fstest.MapFS) func(string) ([]fs.DirEntry, error) {
	return func(dir string) ([]fs.DirEntry, error) {
		name := strings.TrimPrefix(dir, "/")
		if name == "" {
			name = "."
		}
		if f, ok := m[name]; ok && !f.Mode.IsDir() {
			return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.ENOTDIR}
		}
		return fs.ReadDir(m, name)
	}
}

func TestReadable(t *testing.T) {
	machine := tree("bin/", "etc/", "etc/passwd", "etc/shadow", "home/", "home/u/", "home/u/.bashrc",
		"home/u/.ssh/", "home/u/.ssh/id_ed25519", "home/u/.config/", "home/u/.config/gh/", "home/u/.config/gh/hosts.yml",
		"home/u/.config/nvim/", "home/u/src/", "home/u/keys -> .ssh", "home/v/", "lib64 -> usr/lib", "usr/", "usr/lib/", "tmp/", "vmlinuz")
	dir := func(p string) Root { return Root{Path: p, Dir: true} }
	file := func(p string) Root { return Root{Path: p} }
	for _, tc := range []struct {
		name   string
		hidden []string
		want   []Root
		err    string
	}{
		{name: "nothing hidden: everything", want: []Root{dir("/")}},
		{
			name:   "a credential directory: every sibling along its ancestors, no link",
			hidden: []string{"/home/u/.ssh"},
			want: []Root{dir("/bin"), dir("/etc"), file("/home/u/.bashrc"), dir("/home/u/.config"), dir("/home/u/src"),
				dir("/home/v"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{
			name:   "nested: the outer hides the inner",
			hidden: []string{"/home/u/.config/gh", "/home/u/.config"},
			want: []Root{dir("/bin"), dir("/etc"), file("/home/u/.bashrc"), dir("/home/u/.ssh"), dir("/home/u/src"),
				dir("/home/v"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{
			name:   "one inside a directory: its siblings there",
			hidden: []string{"/home/u/.config/gh"},
			want: []Root{dir("/bin"), dir("/etc"), file("/home/u/.bashrc"), dir("/home/u/.config/nvim"), dir("/home/u/.ssh"),
				dir("/home/u/src"), dir("/home/v"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{
			name:   "two trees and a file",
			hidden: []string{"/home/u/.ssh", "/etc/shadow"},
			want: []Root{dir("/bin"), file("/etc/passwd"), file("/home/u/.bashrc"), dir("/home/u/.config"), dir("/home/u/src"),
				dir("/home/v"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{
			name:   "one that does not exist: its existing ancestors are listed",
			hidden: []string{"/home/u/.aws/credentials"},
			want: []Root{dir("/bin"), dir("/etc"), file("/home/u/.bashrc"), dir("/home/u/.config"), dir("/home/u/.ssh"),
				dir("/home/u/src"), dir("/home/v"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{
			name:   "one beneath a file: the file stays readable",
			hidden: []string{"/etc/passwd/x"},
			want:   []Root{dir("/bin"), file("/etc/passwd"), file("/etc/shadow"), dir("/home"), dir("/tmp"), dir("/usr"), file("/vmlinuz")},
		},
		{name: "the root itself", hidden: []string{"/"}, err: "is not beneath"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Readable("/", tc.hidden, readDirOf(machine))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// On the machine's own file system, under a directory of the test's: a link
// into the hidden directory is not granted, and a hidden path reached through
// a link is hidden once resolved (the constructors resolve it).
func TestReadableOnDisk(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"home/.ssh", "home/src", "real"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "home/.ssh/id_ed25519"), []byte("secret"), 0o600)
	os.Symlink(".ssh", filepath.Join(root, "home/keys"))
	os.Symlink(filepath.Join(root, "home"), filepath.Join(root, "h"))
	hidden, err := resolve(filepath.Join(root, "h/.ssh"))
	if err != nil {
		t.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	if want := filepath.Join(realRoot, "home/.ssh"); hidden != want {
		t.Fatalf("resolved %s, want %s", hidden, want)
	}
	got, err := Readable(realRoot, []string{hidden}, os.ReadDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Root{{Path: filepath.Join(realRoot, "home/src"), Dir: true}, {Path: filepath.Join(realRoot, "real"), Dir: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
