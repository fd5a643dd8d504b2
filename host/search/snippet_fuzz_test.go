package search

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"

	"demiurge.dev/host/runtime"
)

// FuzzSnippet: any text, any match offsets (a corrupt index), any tool
// views: no panic, valid UTF-8 for valid input, bounded output.
func FuzzSnippet(f *testing.F) {
	f.Add("the naïve parser fails", uint64(10), uint64(16), `[{"content":"parser"}]`)
	f.Add("", uint64(0), uint64(0), `{}`)
	f.Add("ééé", uint64(1), uint64(3), `[1,"x",{"a":["b"]}]`)
	f.Add("abc", uint64(1), ^uint64(0), `[]`) // an offset past any int
	f.Fuzz(func(t *testing.T, body string, start, end uint64, views string) {
		locs := search.TermLocationMap{"t": {{Start: start, End: end}, {Start: end, End: start}}}
		s := snippet(body, locs, SnippetChars)
		if utf8.ValidString(body) && !utf8.ValidString(s) {
			t.Fatalf("snippet of valid text is not valid UTF-8: %q", s)
		}
		if n := utf8.RuneCountInString(s); n > SnippetChars+8 {
			t.Fatalf("snippet of %d characters", n)
		}
		m := runtime.MessageRecord{Text: body, ToolResults: json.RawMessage(views)}
		if got := IndexedText(m); len(got) > MaxIndexedText {
			t.Fatalf("indexed text of %d bytes", len(got))
		}
	})
}
