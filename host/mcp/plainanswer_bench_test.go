package mcp

import (
	"strings"
	"testing"
)

// BenchmarkPlainAnswer is plainAnswer alone on the answer almost every
// call gets: a short text, and a 64 KiB one.
func BenchmarkPlainAnswer(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"short", "hello"},
		{"64KiB", strings.Repeat("x", 64<<10)},
	} {
		raw := []byte(`{"content":[{"type":"text","text":"` + c.text + `"}],"isError":false}`)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, _, ok := plainAnswer(raw); !ok {
					b.Fatal("not plain")
				}
			}
		})
	}
}
