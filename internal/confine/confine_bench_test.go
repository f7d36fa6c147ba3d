package confine

import (
	"os/exec"
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
}

func BenchmarkPlainStartWait(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
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
