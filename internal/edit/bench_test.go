package edit

import (
	"fmt"
	"strings"
	"testing"
)

// The DESIGN §9 case in process: 100 blocks into a 20,000-line file.
func BenchmarkApply100Blocks(b *testing.B) {
	var file, in strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&file, "    value_%05d = compute(%d, scale=%d)\n", i, i, i%7)
	}
	for k := 0; k < 100; k++ {
		i := 100 + k*198
		fmt.Fprintf(&in, "### CHANGE %d: scale\nFIND:\n```\n", k+1)
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&in, "    value_%05d = compute(%d, scale=%d)\n", j, j, j%7)
		}
		in.WriteString("```\nREPLACE WITH:\n```\n")
		for j := i; j < i+3; j++ {
			fmt.Fprintf(&in, "    value_%05d = compute(%d, scale=%d)  # rescaled\n", j, j, j%7+1)
		}
		in.WriteString("```\n\n")
	}
	benchApply(b, []byte(file.String()), in.String())
}

// The same change as 100 hunks of a unified diff, as git prints it.
func BenchmarkApply100Hunks(b *testing.B) {
	var file, in strings.Builder
	line := func(j int, tail string, scale int) string {
		return fmt.Sprintf("    value_%05d = compute(%d, scale=%d)%s\n", j, j, scale, tail)
	}
	for i := 0; i < 20000; i++ {
		file.WriteString(line(i, "", i%7))
	}
	in.WriteString("--- a/big.py\n+++ b/big.py\n")
	for k := 0; k < 100; k++ {
		i := 100 + k*198
		fmt.Fprintf(&in, "@@ -%d,9 +%d,9 @@\n", i-2, i-2)
		for j := i - 3; j < i; j++ {
			in.WriteString(" " + line(j, "", j%7))
		}
		for j := i; j < i+3; j++ {
			in.WriteString("-" + line(j, "", j%7))
		}
		for j := i; j < i+3; j++ {
			in.WriteString("+" + line(j, "  # rescaled", j%7+1))
		}
		for j := i + 3; j < i+6; j++ {
			in.WriteString(" " + line(j, "", j%7))
		}
	}
	benchApply(b, []byte(file.String()), in.String())
}

// benchApply parses input and applies it to data, every block applied.
func benchApply(b *testing.B, data []byte, input string) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		blocks, err := ParseBlocks(input)
		if err != nil {
			b.Fatal(err)
		}
		res, outs := ApplyAll(Parse(data), "big.py", blocks)
		for _, o := range outs {
			if o.Code != Applied {
				b.Fatal(o)
			}
		}
		_ = res.Bytes()
	}
}
