// Command bench measures the budgets of DESIGN §9: each figure is a ratio against
// git (or the test runner) measured in the same run on the same data.
//
//	go run ./bench -bin bin [-runs 7] [-only report,memory] [-replay ~/src/more-itertools]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type bench struct {
	name string
	run  func(b *runner) error
}

var benches = []bench{
	{"report", benchReport},
	{"memory", benchMemory},
	{"hooks", benchHooks},
	{"verify", benchVerify},
	{"tdd", benchTDD},
	{"named", benchRedNamed},
	{"replay", benchReplay},
	{"reprove", benchReprove},
	{"patch", benchPatch},
	{"context", benchContext},
	{"prompts", benchPrompts},
	{"gogit", benchGoGit},
}

type runner struct {
	bin  string // where git-diffgate and git-tdd are
	work string
	runs int
	env  []string
	// pipe sends every command's stdout and stderr through a pipe, drained
	// here, instead of /dev/null: git tdd red reads the tests' output through a
	// pipe to show it, and a test runner writes more slowly to a pipe than to
	// /dev/null, so the bare command gets the same.
	pipe bool
	// replay is a clone of more-itertools to replay bug-fixes from (-replay)
	replay string
}

func main() {
	bin := flag.String("bin", "bin", "directory with the built git-diffgate and git-tdd")
	runs := flag.Int("runs", 7, "timed runs of each command (after one warm-up)")
	only := flag.String("only", "", "comma-separated benchmarks to run (default: all)")
	keep := flag.Bool("keep", false, "keep the work directory")
	replay := flag.String("replay", "", "a clone of github.com/more-itertools/more-itertools: replay its bug-fixes through git tdd red")
	flag.Parse()
	abs, err := filepath.Abs(*bin)
	check(err)
	work, err := os.MkdirTemp("", "git-tdd-bench-")
	check(err)
	if !*keep {
		defer os.RemoveAll(work)
	}
	home := filepath.Join(work, "home")
	check(os.MkdirAll(home, 0o755))
	env := append(os.Environ(), "PATH="+abs+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=b@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=b@example.com")
	r := &runner{bin: abs, work: work, runs: *runs, env: env, replay: *replay}
	failed := false
	for _, b := range benches {
		if *only != "" && !strings.Contains(","+*only+",", ","+b.name+",") {
			continue
		}
		if err := b.run(r); err != nil {
			fmt.Printf("%-8s error: %v\n", b.name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// cmd prepares a command in dir with the bench environment.
func (r *runner) cmd(dir string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, r.env
	return c
}

// sh runs a command and fails on error.
func (r *runner) sh(dir string, stdin io.Reader, name string, args ...string) ([]byte, error) {
	c := r.cmd(dir, name, args...)
	c.Stdin = stdin
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// timing is one command's measured runs.
type timing struct {
	times []time.Duration
	hwm   int64 // KiB: the command's own peak resident memory, without its children
	anon  int64 // KiB: the largest of its private (anonymous) resident memory seen
	// cpu is each run's processor time, the processes it waited for included:
	// what a command costs whatever else the machine runs
	cpu []time.Duration
}

func (t timing) medianCPU() time.Duration { return medianOf(t.cpu) }

func (t timing) median() time.Duration {
	s := append([]time.Duration(nil), t.times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// measure runs each command once to warm caches, then r.runs times, interleaved
// so that both see the same machine state; exit codes in ok are accepted.
func (r *runner) measure(dir string, cmds [][]string, ok ...int) ([]timing, error) {
	out := make([]timing, len(cmds))
	// Output goes to /dev/null for every command alike, as hyperfine does: a pipe
	// to a copying goroutine would charge the bigger output to its writer.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	for round := -1; round < r.runs; round++ {
		for i, argv := range cmds {
			c := r.cmd(dir, argv[0], argv[1:]...)
			c.Stdout = null
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if r.pipe {
				c.Stdout = io.Discard // exec copies it through a pipe
			}
			start := time.Now()
			err := c.Start()
			var hwm, anon int64
			if err == nil {
				hwm, anon = watchHWM(c)
				err = c.Wait()
			}
			d := time.Since(start)
			if err != nil && !accepted(c.ProcessState.ExitCode(), ok) {
				return nil, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
			}
			if round < 0 {
				continue
			}
			out[i].times = append(out[i].times, d)
			out[i].hwm = max(out[i].hwm, hwm)
			out[i].anon = max(out[i].anon, anon)
			out[i].cpu = append(out[i].cpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
		}
	}
	return out, nil
}

// watchHWM samples the process's VmHWM (its own peak RSS; wait4's rusage would
// include git's children) and its RssAnon until it exits, and returns the last
// VmHWM read and the largest RssAnon. RSS counts the pages of the binary
// mapped as it runs, which the kernel maps 16 at a time from the page cache:
// as many as are cached (a binary just built: all), not as the command needs.
func watchHWM(c *exec.Cmd) (hwm, anon int64) {
	path := fmt.Sprintf("/proc/%d/status", c.Process.Pid)
	field := func(data []byte, name string) (int64, bool) {
		i := bytes.Index(data, []byte(name))
		if i < 0 {
			return 0, false
		}
		var kb int64
		fmt.Sscanf(string(data[i+len(name):]), "%d", &kb)
		return kb, true
	}
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			return hwm, anon
		}
		h, ok := field(data, "VmHWM:")
		if !ok { // a zombie: it has exited
			return hwm, anon
		}
		a, _ := field(data, "RssAnon:")
		hwm, anon = max(hwm, h), max(anon, a)
		time.Sleep(time.Millisecond)
	}
}

func accepted(code int, ok []int) bool {
	for _, c := range ok {
		if c == code {
			return true
		}
	}
	return false
}

// fastImport writes commits with git fast-import; files maps path to content.
type fastImport struct {
	w *bufio.Writer
}

func (f *fastImport) commit(ref, msg string, parent string, files map[string][]byte, order []string) {
	fmt.Fprintf(f.w, "commit %s\ncommitter bench <b@example.com> 1700000000 +0000\ndata %d\n%s\n", ref, len(msg), msg)
	if parent != "" {
		fmt.Fprintf(f.w, "from %s\n", parent)
	}
	for _, p := range order {
		fmt.Fprintf(f.w, "M 100644 inline %s\ndata %d\n", p, len(files[p]))
		f.w.Write(files[p])
		f.w.WriteString("\n")
	}
	f.w.WriteString("\n")
}

// newRepo creates a repository and feeds fast-import from gen.
func (r *runner) newRepo(name string, gen func(f *fastImport)) (string, error) {
	dir := filepath.Join(r.work, name)
	if _, err := r.sh(r.work, nil, "git", "init", "-q", "-b", "main", dir); err != nil {
		return "", err
	}
	c := r.cmd(dir, "git", "fast-import", "--quiet")
	in, err := c.StdinPipe()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		return "", err
	}
	f := &fastImport{w: bufio.NewWriterSize(in, 1<<20)}
	gen(f)
	f.w.Flush()
	in.Close()
	if err := c.Wait(); err != nil {
		return "", fmt.Errorf("fast-import: %v: %s", err, stderr.String())
	}
	return dir, nil
}

// stage makes the index hold `to` while HEAD stays at `from`, through
// update-index, as `git add` would leave it (the cache tree invalidated).
func (r *runner) stage(dir, from, to string) error {
	if _, err := r.sh(dir, nil, "git", "read-tree", from); err != nil {
		return err
	}
	raw, err := r.sh(dir, nil, "git", "diff-tree", "-r", "--no-renames", from, to)
	if err != nil {
		return err
	}
	var info bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 {
			continue
		}
		fmt.Fprintf(&info, "%s %s\t%s\n", f[1], f[3], path)
	}
	_, err = r.sh(dir, &info, "git", "update-index", "--index-info")
	return err
}
