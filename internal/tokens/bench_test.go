package tokens

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkCount(b *testing.B) {
	var s strings.Builder
	for j := 0; s.Len() < 1<<20; j++ {
		fmt.Fprintf(&s, "def handler_%d(request, limit=%d):\n    return request.get(%q, limit)\n\n", j, j, fmt.Sprintf("key%d", j))
	}
	text := s.String()
	Count("warm")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Count(text)
	}
}
