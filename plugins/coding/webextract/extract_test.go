package webextract

import (
	"net/url"
	"strings"
	"testing"
)

func TestExtractHTML(t *testing.T) {
	base, _ := url.Parse("https://example.org/docs/page.html")
	cases := []struct {
		name, html string
		title      string
		text       string
		fromMain   bool
	}{
		{
			name: "main preferred over chrome",
			html: `<!doctype html><html><head><title> The  Title </title><style>body{color:red}</style>
<script>var secret = "x";</script></head><body>
<header><a href="/">Home</a> <a href="/about">About</a></header>
<nav><ul><li>Menu one</li><li>Menu two</li></ul></nav>
<main><h1>Heading</h1><p>First   paragraph
with <b>bold</b> and <a href="../other.html?q=1">a link</a>.</p>
<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>
<h2>Sub</h2><p>Line<br>break</p></main>
<aside>Related stuff</aside><footer>Copyright</footer></body></html>`,
			title: "The Title",
			text: "# Heading\n\nFirst paragraph with bold and [a link](https://example.org/other.html?q=1).\n\n" +
				"- one\n- two\n\n1. first\n2. second\n\n## Sub\n\nLine\nbreak",
			fromMain: true,
		},
		{
			name:  "body when there is no main",
			html:  `<html><head><title>T</title></head><body><div>Alpha</div><div>Beta <span>gamma</span></div><p>Delta</p><footer>f</footer></body></html>`,
			title: "T",
			text:  "Alpha\nBeta gamma\n\nDelta",
		},
		{
			name:     "article header kept, nested divs in role=main",
			html:     `<div role="main"><div><header><h1>Post</h1></header></div><div>Body</div></div><div>After</div>`,
			text:     "# Post\n\nBody",
			fromMain: true,
		},
		{
			name: "hidden and aria-hidden and noscript dropped",
			html: `<p>Shown</p><p hidden>Hidden</p><div aria-hidden="true">Aria</div><noscript>Enable JS</noscript><p>End</p>`,
			text: "Shown\n\nEnd",
		},
		{
			name: "table and pre",
			html: "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table><pre>x  = 1\n  y</pre><p>z</p>",
			text: "A | B\n1 | 2\n\nx  = 1\n  y\n\nz",
		},
		{
			name: "entities, controls and javascript links",
			html: "<p>a &amp; b &lt;c&gt; \x1b[31mred</p><p><a href=\"javascript:alert(1)\">click</a> <a href=\"#top\">top</a> <a href=\"mailto:x@y\">mail</a></p>",
			text: "a & b <c> [31mred\n\nclick top mail",
		},
		{
			name: "nested skip of the same tag",
			html: `<nav><nav>inner</nav>still nav</nav><p>after</p>`,
			text: "after",
		},
		{
			name: "a small article island in a long body is not the content",
			html: "<div><p>" + strings.Repeat("body text ", 100) + "</p></div><article><p>teaser</p></article>",
			text: strings.TrimSpace(strings.Repeat("body text ", 100)) + "\n\nteaser",
		},
		{
			name: "no title, empty body",
			html: `<html><body></body></html>`,
			text: "",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ExtractHTML(strings.NewReader(c.html), base, 10000)
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != c.title || p.Text != c.text || p.FromMain != c.fromMain {
				t.Errorf("got title %q main %v text\n%q\nwant title %q main %v text\n%q", p.Title, p.FromMain, p.Text, c.title, c.fromMain, c.text)
			}
			if p.TextTruncated || p.Chars != p.TotalChars {
				t.Errorf("untruncated text reports chars %d total %d truncated %v", p.Chars, p.TotalChars, p.TextTruncated)
			}
		})
	}
}

func TestExtractHTMLCapsCharacters(t *testing.T) {
	page := "<p>" + strings.Repeat("word ", 1000) + "</p><p>" + strings.Repeat("é", 50) + "</p>"
	p, err := ExtractHTML(strings.NewReader(page), nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !p.TextTruncated || p.Chars != 100 || len([]rune(p.Text)) != 100 {
		t.Errorf("chars %d (text %d runes), truncated %v; want 100 and true", p.Chars, len([]rune(p.Text)), p.TextTruncated)
	}
	if p.TotalChars != 4999+2+50 {
		t.Errorf("total %d; want %d", p.TotalChars, 4999+2+50)
	}
}
