package gitx

import (
	"context"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// shardMin is the number of changed files from which the patch is split:
// below it, one diff-tree is faster than a listing and several processes.
const shardMin = 512

// diffShards is how many diff-trees a large change gets: half the cores, so
// that the review's own parsing has the rest, and none below 4 cores: on 2
// cores shared with the parsing, the 5,000-file benchmark took 221 ms sharded
// and 158 ms in one diff-tree. GIT_TDD_DIFF_SHARDS sets it (the tests; the
// result is checked against the listing whatever it is).
func diffShards() int {
	if n, err := strconv.Atoi(os.Getenv("GIT_TDD_DIFF_SHARDS")); err == nil && n > 0 {
		return n
	}
	if n := runtime.NumCPU(); n >= 4 {
		return n / 2
	}
	return 1
}

// maxPathspecBytes keeps each shard's command line far below the system's limit.
const maxPathspecBytes = 256 << 10

// diffSharded splits a large change's patch by top-level directory over one
// diff-tree a core: git diffs file by file in one thread, and on the 5,000-file
// benchmark one whole-file patch alone took 1.15× `git diff --cached --numstat`.
// A first listing (-M -C, no patch) says which files changed; a rename or copy
// across directories keeps them in one shard. The shards together must give
// exactly that listing (rename detection on fewer files can pair differently,
// and so can a rename limit): otherwise ok is false and one diff-tree runs.
func (r *Repo) diffSharded(ctx context.Context, base, tree string, texts *Texts) (diffs []FileDiff, ok bool, err error) {
	cores := diffShards()
	if cores < 2 {
		return nil, false, nil
	}
	out, err := r.output(ctx, append(append([]string{"diff-tree", "-z", "--raw", "--no-abbrev"}, diffOptions...), base, tree)...)
	if err != nil {
		return nil, false, err
	}
	listed, err := ParseRaw(out)
	if err != nil || len(listed) < shardMin {
		return nil, false, err
	}
	shards := Shards(listed, cores)
	if len(shards) < 2 {
		return nil, false, nil
	}
	defer leaveCores(len(shards))()
	results := make([][]FileDiff, len(shards))
	errs := make([]error, len(shards))
	lit := r.WithEnv("GIT_LITERAL_PATHSPECS=1")
	var wg sync.WaitGroup
	for i, specs := range shards {
		wg.Go(func() { results[i], errs[i] = lit.diffWhole(ctx, base, tree, specs, texts) })
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, false, e
		}
	}
	merged, ok := mergeShards(listed, results)
	return merged, ok, nil
}

// Shards groups the changed files' top-level directories (or root files) into
// at most n pathspec lists of about equal size; a rename or copy joins its two
// sides' groups. Nil when the change cannot be split usefully.
func Shards(listed []RawEntry, n int) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p, ok := parent[k]; ok && p != k {
			root := find(p)
			parent[k] = root
			return root
		}
		parent[k] = k
		return k
	}
	size := map[string]int{}
	for _, e := range listed {
		k := topLevel(e.Path)
		find(k)
		if e.OldPath != e.Path {
			parent[find(topLevel(e.OldPath))] = find(k)
		}
	}
	members := map[string][]string{}
	for k := range parent {
		root := find(k)
		members[root] = append(members[root], k)
	}
	for _, e := range listed {
		size[find(topLevel(e.Path))]++
	}
	roots := make([]string, 0, len(members))
	for root := range members {
		roots = append(roots, root)
	}
	// largest first onto the least loaded shard
	sort.Slice(roots, func(i, j int) bool {
		if size[roots[i]] != size[roots[j]] {
			return size[roots[i]] > size[roots[j]]
		}
		return roots[i] < roots[j]
	})
	shards := make([][]string, min(n, len(roots)))
	load := make([]int, len(shards))
	specBytes := 0
	for _, root := range roots {
		i := 0
		for j := range load {
			if load[j] < load[i] {
				i = j
			}
		}
		sort.Strings(members[root])
		shards[i] = append(shards[i], members[root]...)
		load[i] += size[root]
		for _, m := range members[root] {
			specBytes += len(m) + 1
		}
	}
	if len(shards) < 2 || specBytes > maxPathspecBytes {
		return nil
	}
	return shards
}

func topLevel(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

// mergeShards puts the shards' results in the listing's order; ok is false
// unless they are exactly the listing.
func mergeShards(listed []RawEntry, results [][]FileDiff) ([]FileDiff, bool) {
	byKey := map[RawEntry]FileDiff{}
	total := 0
	for _, res := range results {
		for _, d := range res {
			byKey[d.RawEntry] = d
			total++
		}
	}
	if total != len(listed) || len(byKey) != total {
		return nil, false
	}
	out := make([]FileDiff, len(listed))
	for i, e := range listed {
		d, ok := byKey[e]
		if !ok {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}
