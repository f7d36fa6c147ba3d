package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The DESIGN §9 patch case in process, on disk: 100 blocks into 20,000 lines.
func BenchmarkPatch100Blocks(b *testing.B) {
	f := newFixture(&testing.T{})
	var file, in strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&file, "    value_%05d = compute(%d, scale=%d)\n", i, i, i%7)
	}
	for k := 0; k < 100; k++ {
		i := 100 + k*198
		fmt.Fprintf(&in, "<<<<<<< SEARCH\n")
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&in, "    value_%05d = compute(%d, scale=%d)\n", j, j, j%7)
		}
		in.WriteString("=======\n")
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&in, "    value_%05d = compute(%d, scale=%d)  # rescaled\n", j, j, j%7+1)
		}
		in.WriteString(">>>>>>> REPLACE\n")
	}
	p := filepath.Join(f.dir, "big.py")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(p, []byte(file.String()), 0o644)
		b.StartTimer()
		if err := f.env.Patch(PatchOptions{Path: "big.py", Input: []byte(in.String())}); err != nil {
			b.Fatal(err)
		}
	}
}
