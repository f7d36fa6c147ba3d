package review

import (
	"context"
	"runtime"
	"sync"

	"github.com/git-tdd/git-tdd/internal/gitx"
	"github.com/git-tdd/git-tdd/internal/symbols"
	"golang.org/x/sync/semaphore"
)

// maxSource is the largest version of a file whose definitions are read: an
// old version over it is not compared, a new one over it counts as
// unreadable. Go's parser takes about 20 times a file's size in memory, so
// Go's limit is lower. Together with parseBudget, the bytes being parsed at
// once, it bounds the memory of a review whatever the change.
const (
	maxSource   = 1 << 20
	maxGoSource = 512 << 10
	parseBudget = 2 << 20
)

// definitions compares the definitions of a change's files in parallel while
// its patch streams past: files that had definitions (modified, renamed,
// deleted or type-changed Python and Go files) as their texts arrive; added
// and copied files, which can only be where definitions went, afterwards and
// only when some definition went somewhere.
type definitions struct {
	parsing *semaphore.Weighted // of parseBudget bytes
	jobs    chan []job          // in batches: one a file would keep the scheduler busier than the parsing
	taking  sync.Mutex          // over batch, bytes and whole: the shards of a diff hand texts over at once
	batch   []job
	bytes   int
	whole   map[gitx.RawEntry]bool // files the patch did not hold whole: read from their blobs
	wg      sync.WaitGroup
	mu      sync.Mutex // over files: the workers fill it
	files   map[gitx.RawEntry]*symbols.File
}

type job struct {
	e        gitx.RawEntry
	old, new gitx.Text
}

func startDefinitions() *definitions {
	n := max(runtime.GOMAXPROCS(0)-1, 1) // git diff-tree, on the critical path, keeps a core
	s := &definitions{parsing: semaphore.NewWeighted(parseBudget), jobs: make(chan []job, n),
		files: map[gitx.RawEntry]*symbols.File{}, whole: map[gitx.RawEntry]bool{}}
	s.wg.Add(n)
	for range n {
		go func() {
			defer s.wg.Done()
			for batch := range s.jobs {
				for _, j := range batch {
					s.put(j.e, s.compare(&j.e, j.old, j.new))
				}
			}
		}()
	}
	return s
}

func (s *definitions) put(e gitx.RawEntry, f *symbols.File) {
	s.mu.Lock()
	s.files[e] = f
	s.mu.Unlock()
}

// texts asks the diff for the texts of the files that had definitions. The
// diff may hand them over from several shards at once.
func (s *definitions) texts() *gitx.Texts {
	return &gitx.Texts{Want: hadDefinitions, Limit: maxSource, Got: func(d *gitx.FileDiff, old, new gitx.Text) error {
		s.taking.Lock()
		defer s.taking.Unlock()
		if old.Partial || new.Partial {
			s.whole[d.RawEntry] = true
			return nil
		}
		s.batch = append(s.batch, job{d.RawEntry, old, new})
		if s.bytes += len(old.Data) + len(new.Data); len(s.batch) == batchFiles || s.bytes >= batchBytes {
			s.send()
		}
		return nil
	}}
}

// A batch is sent when it has batchFiles files or batchBytes of text.
const (
	batchFiles = 64
	batchBytes = 256 << 10
)

// send hands the batch to the workers (under s.taking while texts come in).
func (s *definitions) send() {
	if len(s.batch) > 0 {
		s.jobs <- s.batch
		s.batch, s.bytes = nil, 0
	}
}

// hadDefinitions: a Python or Go file that existed before the change.
func hadDefinitions(e *gitx.RawEntry) bool {
	return e.Status != 'A' && e.Status != 'C' && isFile(e.OldMode) && symbols.LanguageOf(e.OldPath) != symbols.None
}

func isFile(mode uint32) bool { return mode == gitx.ModeRegular || mode == gitx.ModeExec }

// compare reads a file's definitions before and after, within the parse
// budget: in the language of its old name, since a rename does not change
// what the text defines.
func (s *definitions) compare(d *gitx.RawEntry, old, new gitx.Text) *symbols.File {
	n := min(int64(len(old.Data)+len(new.Data)), parseBudget)
	s.parsing.Acquire(context.Background(), n) // cannot fail: no deadline, never more than the budget
	defer s.parsing.Release(n)
	lang := symbols.LanguageOf(d.OldPath)
	return symbols.CompareFile(d.Path, lang,
		side(old, lang, d.Status != 'A' && d.Status != 'C' && isFile(d.OldMode)),
		side(new, lang, d.Status != 'D' && isFile(d.NewMode)))
}

func side(t gitx.Text, lang symbols.Language, present bool) symbols.Side {
	switch {
	case !present:
		return symbols.Side{}
	case t.Over || lang == symbols.Go && len(t.Data) > maxGoSource:
		return symbols.Side{Present: true, Problem: "is over " + size(lang)}
	}
	return symbols.Side{Present: true, Text: t.Data}
}

func size(lang symbols.Language) string {
	if lang == symbols.Go {
		return "512 KiB"
	}
	return "1 MiB"
}

// finish waits for the comparisons, completes them, and decides what became
// of every file's definitions. err is the diff's: the work stops either way.
func (s *definitions) finish(ctx context.Context, repo *gitx.Repo, diffs []gitx.FileDiff, ignore []string, err error) ([]symbols.Verdict, error) {
	s.send()
	close(s.jobs)
	s.wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := s.readWhole(ctx, repo); err != nil {
		return nil, err
	}
	if s.anyGone() {
		if err := s.readDestinations(ctx, repo, diffs); err != nil {
			return nil, err
		}
	}
	files := make([]*symbols.File, len(diffs))
	for i := range diffs {
		if files[i] = s.files[diffs[i].RawEntry]; files[i] == nil {
			files[i] = &symbols.File{Path: diffs[i].Path}
		}
	}
	return symbols.Resolve(files, ignore), nil
}

// readWhole compares the files whose patch did not hold their texts whole (a
// line longer than the patch scanner keeps), from their blobs.
func (s *definitions) readWhole(ctx context.Context, repo *gitx.Repo) error {
	var entries []gitx.RawEntry
	var oids []string
	for e := range s.whole {
		entries, oids = append(entries, e), append(oids, e.OldOID, e.NewOID)
	}
	texts := make([]gitx.Text, len(oids))
	err := repo.BlobTexts(ctx, present(oids), maxSource, collect(oids, texts))
	if err != nil {
		return err
	}
	for k, e := range entries {
		s.files[e] = s.compare(&e, texts[2*k], texts[2*k+1])
	}
	return nil
}

// readDestinations reads the Python and Go files that had nothing before the
// change (added, copied, or not source before): where definitions may have gone.
func (s *definitions) readDestinations(ctx context.Context, repo *gitx.Repo, diffs []gitx.FileDiff) error {
	var entries []gitx.RawEntry
	var oids []string
	for i := range diffs {
		e := diffs[i].RawEntry
		if s.files[e] == nil && !hadDefinitions(&e) && e.Status != 'D' && isFile(e.NewMode) && symbols.LanguageOf(e.Path) != symbols.None {
			entries, oids = append(entries, e), append(oids, e.NewOID)
		}
	}
	texts := make([]gitx.Text, len(oids))
	if err := repo.BlobTexts(ctx, oids, maxSource, collect(oids, texts)); err != nil {
		return err
	}
	for k, e := range entries {
		lang := symbols.LanguageOf(e.Path)
		s.files[e] = symbols.CompareFile(e.Path, lang, symbols.Side{}, side(texts[k], lang, true))
	}
	return nil
}

func (s *definitions) anyGone() bool {
	for _, f := range s.files {
		if len(f.Gone) > 0 {
			return true
		}
	}
	return false
}

// present leaves out the null ids of the sides a file does not have.
func present(oids []string) []string {
	var out []string
	for _, o := range oids {
		if !gitx.IsNullOID(o) {
			out = append(out, o)
		}
	}
	return out
}

// collect stores each text read at the place of its id in oids, skipping null ids.
func collect(oids []string, texts []gitx.Text) func(int, gitx.Text) error {
	var at []int
	for k, o := range oids {
		if !gitx.IsNullOID(o) {
			at = append(at, k)
		}
	}
	return func(n int, t gitx.Text) error {
		texts[at[n]] = t
		return nil
	}
}
