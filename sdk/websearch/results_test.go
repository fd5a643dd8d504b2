package websearch

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var example = Provider{Title: "Example Search", SecretTarget: "EXAMPLE_API_KEY"}

const testKey = "ex-test-key-0123456789abcdef"

func TestRenderNumbersHits(t *testing.T) {
	r := &Result{Provider: "example", Query: "golang", Results: []Hit{}, MoreAvailable: true, Note: "the query was cut"}
	r.Add("Result &amp; <strong>1</strong>", "https://example.org/1", "The <b>Go</b> language.", "2 days ago", 0.5)
	r.Add("no URL", "javascript:alert(1)", "x", "", 0)
	r.Add("", "http://example.org/2", "", "", 0)
	res := example.Render(r)
	want := "Web search (Example Search): 2 results for \"golang\"\n(the query was cut)\n" + UntrustedNote + "\n" +
		"\n1. Result & 1\n   https://example.org/1\n   (2 days ago)\n   The Go language.\n" +
		"\n2. http://example.org/2\n   http://example.org/2\n" +
		"\n[1 more results left out to keep this short; ask for fewer with count, or refine the query]\n"
	if res.IsError || res.Content != want {
		t.Fatalf("content:\n%s\nwant:\n%s", res.Content, want)
	}
	if r.Returned != 2 || r.Omitted != 1 || r.Results[0].Score != 0.5 || res.Structured != r {
		t.Fatalf("structured = %+v", r)
	}
}

func TestRenderSaysMoreExist(t *testing.T) {
	r := &Result{Query: "q", Results: []Hit{}, MoreAvailable: true}
	r.Add("t", "https://example.org/", "s", "", 0)
	if res := example.Render(r); !strings.Contains(res.Content, "[more results exist; refine the query to see others]") {
		t.Fatalf("got %s", res.Content)
	}
}

func TestRenderNoResults(t *testing.T) {
	for _, tc := range []struct{ note, want string }{
		{"", `No web results for "zzz" (Example Search). Try fewer or broader words, or drop the filters.`},
		{"cut", `No web results for "zzz" (Example Search). Try fewer or broader words, or drop the filters. (cut)`},
	} {
		res := example.Render(&Result{Query: "zzz", Results: []Hit{}, Note: tc.note})
		if res.IsError || res.Content != tc.want {
			t.Errorf("got %q, want %q", res.Content, tc.want)
		}
	}
}

func TestRenderIsBounded(t *testing.T) {
	long := strings.Repeat("word ", 400)
	r := &Result{Query: "q", Results: []Hit{}}
	for i := range 30 {
		r.Add(long, fmt.Sprintf("https://example.org/%d", i), long, "", 0)
	}
	res := example.Render(r)
	if len(res.Content) > MaxContent+200 {
		t.Fatalf("content is %d bytes", len(res.Content))
	}
	if r.Returned != len(r.Results) || r.Returned == 0 || r.Returned+r.Omitted != 30 || r.Omitted == 0 {
		t.Fatalf("returned %d omitted %d", r.Returned, r.Omitted)
	}
	for _, h := range r.Results {
		if len([]rune(h.Title)) > MaxTitle || len([]rune(h.Snippet)) > MaxSnippet {
			t.Fatalf("unbounded hit: %+v", h)
		}
	}
	if !strings.Contains(res.Content, "more results left out") {
		t.Errorf("content does not say results were left out")
	}
}

func TestMakeHitRefusesUnusableURLs(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://example.org/a", true},
		{"  http://example.org/b  ", true},
		{"", false},
		{"javascript:alert(1)", false},
		{"ftp://example.org/", false},
		{"https://example.org/\nx", false},
		{"https://example.org/" + strings.Repeat("a", MaxURL), false},
	} {
		h, ok := MakeHit(1, "t", tc.url, "s", "", 0)
		if ok != tc.ok || (ok && h.URL != strings.TrimSpace(tc.url)) {
			t.Errorf("MakeHit(%q) = %+v, %v; want ok %v", tc.url, h, ok, tc.ok)
		}
	}
}

func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"<strong>Go</strong> &amp; more", 200, "Go & more"},
		{"line\none\t\x00two", 200, "line one two"},
		{"a < b", 200, "a"}, // an unclosed tag swallows the rest: never half markup
		{"\xff\xfe ok", 200, "\uFFFD ok"},
		{strings.Repeat("é", 10), 5, "éééé…"},
	} {
		if got := CleanText(tc.in, tc.max); got != tc.want {
			t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	f.Add("<strong>Go</strong> &amp; more", 200)
	f.Add("a < b > c", 3)
	f.Add("\xff\xfe\x00 ok &#0; &lt;b&gt;", 10)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 1000 {
			return
		}
		got := CleanText(s, max)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > max || strings.ContainsFunc(got, unicode.IsControl) {
			t.Fatalf("CleanText(%q, %d) = %q", s, max, got)
		}
	})
}
