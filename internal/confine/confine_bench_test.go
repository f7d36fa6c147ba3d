package confine

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// What running headless costs a program that does nothing: against a plain
// start and wait, the session, the watch and the sweep after it.
func BenchmarkStartWait(b *testing.B) {
	for b.Loop() {
		p, err := Start(exec.Command("true"))
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	reportThreads(b)
}

func BenchmarkPlainStartWait(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// What git tdd red does: programs started by goroutines at once (git add,
// git ls-files and git merge-base), each waited for by its goroutine, while
// the process has the threads a Go program has after a while (held here by
// goroutines locked to them).
func BenchmarkStartWaitParallel(b *testing.B) {
	for _, n := range []int{1, 3, 6} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			defer holdThreads(8)()
			for b.Loop() {
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						p, err := Start(exec.Command("true"))
						if err != nil {
							b.Error(err)
							return
						}
						if err := p.Wait(); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
			reportThreads(b)
		})
	}
}

// The sweep after a program exits, alone, in a process of 8 threads more.
func BenchmarkSweep(b *testing.B) {
	defer holdThreads(8)()
	for b.Loop() {
		if _, err := sweep(false); err != nil {
			b.Fatal(err)
		}
	}
}

// The sweep before a question, which reads every process's stat.
func BenchmarkKillStrays(b *testing.B) {
	for b.Loop() {
		if _, err := KillStrays(); err != nil {
			b.Fatal(err)
		}
	}
}

// holdThreads keeps n more threads in the process until the function it
// returns is called.
func holdThreads(n int) func() {
	release := make(chan struct{})
	var ready sync.WaitGroup
	for range n {
		ready.Add(1)
		go func() {
			runtime.LockOSThread()
			ready.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	ready.Wait()
	return func() { close(release) }
}

// reportThreads reports how many threads the process has.
func reportThreads(b *testing.B) {
	data, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "Threads:"); ok {
			t, _ := strconv.Atoi(strings.TrimSpace(n))
			b.ReportMetric(float64(t), "threads")
		}
	}
}
