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
