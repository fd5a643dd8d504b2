package webextract

import (
	"io"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is the readable content of one document.
type Page struct {
	Title string
	Text  string
	// FromMain is true when Text is the content of <main>, <article> or
	// role=main rather than the whole body.
	FromMain bool
	// Chars is the length of Text in characters; TotalChars the length
	// the text would have had without the cap.
	Chars      int
	TotalChars int
	// TextTruncated is true when the character cap cut Text.
	TextTruncated bool
}

// skipped elements never contribute text: code, styling, chrome and
// controls. header and footer are chrome only outside the main content
// (an article's header holds its title).
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Nav: true, atom.Aside: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Select: true,
	atom.Button: true, atom.Dialog: true,
}

var chrome = map[atom.Atom]bool{atom.Header: true, atom.Footer: true}

var skippedRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true}

// paragraphs are blocks set apart by a blank line; lines by a newline.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Pre: true, atom.Blockquote: true,
	atom.Table: true, atom.Hr: true, atom.Figure: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Details: true, atom.Address: true, atom.Fieldset: true,
}

var lines = map[atom.Atom]bool{
	atom.Div: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true, atom.Figcaption: true,
	atom.Summary: true, atom.Caption: true, atom.Form: true, atom.Legend: true, atom.Body: true,
}

// Bounds that keep hostile nesting from costing more than the page.
const (
	minMainChars  = 2000
	maxIndent     = 8
	maxTitleBytes = 2048
)

var headings = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// extractor walks HTML tokens once, keeping two bounded texts: the whole
// body and the main content, so that memory stays within the caps however
// large the page is.
type extractor struct {
	base     *url.URL
	all      *textOut
	main     *textOut
	title    strings.Builder
	inTitle  bool
	titleSet bool
	// skipOpen counts open skipped elements by tag; text is dropped while
	// any is open.
	skipOpen  map[atom.Atom]int
	skipDepth int
	// mains are the open main-content elements, each with the nesting
	// depth of its own tag, so that only its own end tag closes it.
	mains     []region
	mainOpen  int
	preDepth  int
	lists     []listState
	cellInRow int
	link      *linkState
}

type region struct {
	tag   atom.Atom
	depth int
}

type listState struct {
	ordered bool
	n       int
}

type linkState struct {
	href string
	text strings.Builder
}

// ExtractHTML reads HTML from r and returns its title and readable text,
// at most maxChars characters of it. base resolves relative links. It
// stops at the first read error and returns what it had, with the error.
func ExtractHTML(r io.Reader, base *url.URL, maxChars int) (Page, error) {
	e := &extractor{
		base: base, all: newTextOut(maxChars), main: newTextOut(maxChars),
		skipOpen: map[atom.Atom]int{},
	}
	z := html.NewTokenizer(r)
	var err error
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				err = z.Err()
			}
			break
		}
		e.token(z, tt)
	}
	e.flushLink()
	out := e.all
	p := Page{Title: collapse(e.title.String())}
	if e.preferMain() {
		out, p.FromMain = e.main, true
	}
	p.Text, p.Chars, p.TotalChars, p.TextTruncated = out.String(), out.chars, out.total, out.truncated
	return p, err
}

// preferMain decides whether the main region is the page's content: it
// must hold text, and not be a small island (a teaser, a comment box) in
// a body whose real text lies outside it.
func (e *extractor) preferMain() bool {
	if strings.TrimSpace(e.main.String()) == "" {
		return false
	}
	return e.main.total >= minMainChars || 4*e.main.total >= e.all.total
}

func (e *extractor) token(z *html.Tokenizer, tt html.TokenType) {
	switch tt {
	case html.TextToken:
		e.textToken(string(z.Text()))
	case html.StartTagToken, html.SelfClosingTagToken:
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		var attrs map[string]string
		if hasAttr {
			attrs = readAttrs(z)
		}
		e.start(a, attrs, tt == html.SelfClosingTagToken)
	case html.EndTagToken:
		name, _ := z.TagName()
		e.end(atom.Lookup(name))
	}
}

func readAttrs(z *html.Tokenizer) map[string]string {
	attrs := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "href", "role", "hidden", "aria-hidden":
			attrs[string(k)] = string(v)
		}
		if !more {
			return attrs
		}
	}
}

func (e *extractor) textToken(s string) {
	if e.inTitle && !e.titleSet {
		if e.title.Len() < maxTitleBytes {
			e.title.WriteString(s[:min(len(s), maxTitleBytes-e.title.Len())])
		}
		return
	}
	if e.skipDepth > 0 {
		return
	}
	s = clean(s)
	if e.link != nil {
		e.link.text.WriteString(s)
		return
	}
	for _, w := range e.outputs() {
		if e.preDepth > 0 {
			w.verbatim(s)
		} else {
			w.text(s)
		}
	}
}

// outputs are the texts a token goes to: always the whole body, and the
// main content while inside it.
func (e *extractor) outputs() []*textOut {
	if e.mainOpen > 0 {
		return []*textOut{e.all, e.main}
	}
	return []*textOut{e.all}
}

func (e *extractor) isSkipped(a atom.Atom, attrs map[string]string) bool {
	if skipped[a] || (chrome[a] && e.mainOpen == 0) {
		return true
	}
	if _, ok := attrs["hidden"]; ok {
		return true
	}
	return attrs["aria-hidden"] == "true" || skippedRoles[attrs["role"]]
}

func (e *extractor) start(a atom.Atom, attrs map[string]string, selfClosing bool) {
	if a == atom.Title {
		e.inTitle = !selfClosing && !e.titleSet
		return
	}
	if e.skipDepth > 0 {
		if skipped[a] || chrome[a] {
			// Count nested skipped tags of the same kind so that the
			// right end tag ends the skip.
			if !selfClosing && e.skipOpen[a] > 0 {
				e.skipOpen[a]++
				e.skipDepth++
			}
		}
		return
	}
	if !isVoid(a) && !selfClosing && e.isSkipped(a, attrs) {
		// Remember which tag opened the skip: only its end closes it.
		e.skipOpen[a]++
		e.skipDepth++
		return
	}
	if !selfClosing && !isVoid(a) {
		for i := range e.mains {
			if e.mains[i].tag == a {
				e.mains[i].depth++
			}
		}
		// Only the outermost main region is tracked: text inside it is
		// main content already, and deep nesting stays O(1) per tag.
		if len(e.mains) == 0 && (a == atom.Main || a == atom.Article || attrs["role"] == "main") {
			e.mains = append(e.mains, region{tag: a, depth: 1})
			e.mainOpen = len(e.mains)
		}
	}
	e.flushLinkOnBlock(a)
	e.open(a, attrs)
}

func (e *extractor) open(a atom.Atom, attrs map[string]string) {
	outs := e.outputs()
	switch {
	case a == atom.Br:
		for _, w := range outs {
			w.lineBreak()
		}
	case headings[a] > 0:
		for _, w := range outs {
			w.block(2)
			w.setPrefix(strings.Repeat("#", headings[a]) + " ")
		}
	case a == atom.Li:
		bullet := "- "
		if n := len(e.lists); n > 0 && e.lists[n-1].ordered {
			e.lists[n-1].n++
			bullet = strconv.Itoa(e.lists[n-1].n) + ". "
		}
		if n := len(e.lists); n > 1 {
			bullet = strings.Repeat("  ", min(n-1, maxIndent)) + bullet
		}
		for _, w := range outs {
			w.block(1)
			w.setPrefix(bullet)
		}
	case a == atom.Ul || a == atom.Ol:
		e.lists = append(e.lists, listState{ordered: a == atom.Ol})
		brk := 2
		if len(e.lists) > 1 {
			brk = 1
		}
		for _, w := range outs {
			w.block(brk)
		}
	case a == atom.Tr:
		e.cellInRow = 0
		for _, w := range outs {
			w.block(1)
		}
	case a == atom.Td || a == atom.Th:
		if e.cellInRow > 0 {
			for _, w := range outs {
				w.glue(" |")
				w.space = true
			}
		}
		e.cellInRow++
	case a == atom.A:
		e.link = &linkState{href: e.resolve(attrs["href"])}
	case paragraphs[a]:
		for _, w := range outs {
			w.block(2)
		}
	case lines[a]:
		for _, w := range outs {
			w.block(1)
		}
	}
	if a == atom.Pre {
		e.preDepth++
	}
}

func (e *extractor) end(a atom.Atom) {
	if a == atom.Title {
		if e.inTitle {
			e.inTitle, e.titleSet = false, true
		}
		return
	}
	if e.skipDepth > 0 {
		if e.skipOpen[a] > 0 {
			e.skipOpen[a]--
			e.skipDepth--
		}
		return
	}
	outs := e.outputs()
	switch {
	case a == atom.A:
		e.flushLink()
	case a == atom.Pre:
		e.preDepth = max(0, e.preDepth-1)
		for _, w := range outs {
			w.block(2)
		}
	case a == atom.Ul || a == atom.Ol:
		if n := len(e.lists); n > 0 {
			e.lists = e.lists[:n-1]
		}
		for _, w := range outs {
			w.block(2)
		}
	case headings[a] > 0 || paragraphs[a]:
		for _, w := range outs {
			w.block(2)
		}
	case lines[a]:
		for _, w := range outs {
			w.block(1)
		}
	}
	kept := e.mains[:0]
	for _, m := range e.mains {
		if m.tag == a {
			m.depth--
		}
		if m.depth > 0 {
			kept = append(kept, m)
		}
	}
	e.mains = kept
	e.mainOpen = len(e.mains)
}

// flushLinkOnBlock ends a link that a block element interrupts (a link
// wrapping a whole card), so the card's lines are not run together.
func (e *extractor) flushLinkOnBlock(a atom.Atom) {
	if e.link != nil && a != atom.A && (paragraphs[a] || lines[a] || headings[a] > 0) {
		e.flushLink()
	}
}

// flushLink writes a link as [text](url), or its text alone when it has
// no http(s) target or the text is the URL itself.
func (e *extractor) flushLink() {
	l := e.link
	if l == nil {
		return
	}
	e.link = nil
	text := collapse(l.text.String())
	if text == "" {
		return
	}
	for _, w := range e.outputs() {
		if l.href == "" || l.href == text {
			w.text(text)
			continue
		}
		w.word("[" + text + "](" + l.href + ")")
	}
}

// resolve makes href absolute against the page; only http(s) targets are
// kept.
func (e *extractor) resolve(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if e.base != nil {
		u = e.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	u.User = nil
	return u.String()
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// clean makes page text safe to show: valid UTF-8, and control characters
// other than newline and tab turned into spaces.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

func collapse(s string) string { return strings.Join(strings.Fields(clean(s)), " ") }
