package gitx

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkScanBig(b *testing.B) {
	data, _ := os.ReadFile("/tmp/patch.txt")
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if err := ScanPatch(bytes.NewReader(data), Visitor{}); err != nil {
			b.Fatal(err)
		}
	}
}
