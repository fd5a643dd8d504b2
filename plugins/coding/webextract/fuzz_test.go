package webextract

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtractHTML: any bytes give valid UTF-8 text within the cap, no
// control characters but newline and tab, and no panic.
func FuzzExtractHTML(f *testing.F) {
	f.Add(articleHTML, 200)
	f.Add("<nav><nav>x</nav>y</nav><p>z</p>", 5)
	f.Add("<div role=main><div><div>a</div></div>b</div>c", 50)
	f.Add("<a href='http://x/'><p>card</p></a><table><tr><td>1<td>2</table>", 30)
	f.Add("<pre>\x1b[2J\x00\xff\xfe</pre><title>t\x07</title>", 10)
	f.Add("<ol><li><ul><li>deep</li></ul></li></ol><h3>h</h3><br><br><br>x", 1000)
	base, _ := url.Parse("https://example.org/a/b")
	f.Fuzz(func(t *testing.T, page string, maxChars int) {
		if maxChars <= 0 || maxChars > 100000 {
			maxChars = 100
		}
		p, err := ExtractHTML(strings.NewReader(page), base, maxChars)
		if err != nil {
			t.Fatalf("strings.Reader gave a read error: %v", err)
		}
		if !utf8.ValidString(p.Text) || !utf8.ValidString(p.Title) {
			t.Fatalf("invalid UTF-8: %q %q", p.Text, p.Title)
		}
		if n := utf8.RuneCountInString(p.Text); n != p.Chars || n > maxChars || p.TotalChars < p.Chars {
			t.Fatalf("text has %d runes, Chars %d, TotalChars %d, cap %d", n, p.Chars, p.TotalChars, maxChars)
		}
		if p.TextTruncated != (p.TotalChars > p.Chars) {
			t.Fatalf("truncated %v with %d of %d chars", p.TextTruncated, p.Chars, p.TotalChars)
		}
		for _, r := range p.Text + p.Title {
			if isControl(r) {
				t.Fatalf("control character %U in output", r)
			}
		}
	})
}
