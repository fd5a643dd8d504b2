package untrusted

import (
	"strings"
	"testing"
)

// benchPage is about n bytes of ordinary web text with the vocabulary's
// words in it (so the rules run), and no signal.
func benchPage(n int) string {
	para := "The previous release notes explain how AI models should be evaluated; agents read the guide. " +
		"Run the command to install the package, then follow the instructions above. Developers can enable " +
		"debug mode with a flag. <div class=\"note\">See [the docs](https://example.com/docs) for more.</div>\n"
	return strings.Repeat(para, n/len(para)+1)[:n]
}

func BenchmarkScreen1MiB(b *testing.B) {
	s := benchPage(1 << 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if Screen(s).Flagged {
			b.Fatal("flagged")
		}
	}
}

func BenchmarkScreenWrap4KiB(b *testing.B) {
	s := benchPage(4 << 10)
	bd := NewBoundary()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		wrap(bd, "mcp:docs", s, Screen(s))
	}
}

// BenchmarkScreenForBoundaryFirst is ScreenFor on the fixture's 1 MiB
// page with the boundary's first letter varied: T and A start words of
// every line of it, Q Z (rareFirst, what NewBoundary draws) and J X none.
// strings.Index stops at each place the first byte occurs, so the
// first letter is most of what finding the boundary costs.
func BenchmarkScreenForBoundaryFirst(b *testing.B) {
	s := fixturePage(1 << 20)
	for _, first := range []string{"T", "A", "J", "Q", "X", "Z"} {
		bd := first + NewBoundary()[1:]
		b.Run(first, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if v, at := ScreenFor(s, bd); v.Flagged || at >= 0 {
					b.Fatal("flagged, or the boundary found")
				}
			}
		})
	}
}
