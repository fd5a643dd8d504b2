package fsops

import (
	"context"
	"testing"
)

// TestSearchFindsLineEndsInCRLFFiles: an empty result reads as "nothing
// here", so "one$" must find "one\r\n" as it finds "one\n", with a literal
// in the pattern or without (the candidate scan), and a pattern naming the
// \r still matches it.
func TestSearchFindsLineEndsInCRLFFiles(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "crlf.txt", "one\r\ntwo 12\r\nthree\r\nlast")
	fx.write(t, "lf.txt", "one\ntwo 12\n")
	for _, tc := range []struct {
		pattern string
		want    int
	}{
		{"one$", 2},
		{`\d+$`, 2},
		{`^t\w+$`, 1}, // three (CRLF); "two 12" has a space
		{`one\r$`, 1},
		{`(?i)ONE$`, 2},
		{`st$`, 1}, // the last line, no line end at all
		{`one\z`, 2},
		{`(?m)\d+$`, 2},
	} {
		res, err := Search(context.Background(), fx.ws, SearchParams{Pattern: tc.pattern})
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if len(res.Matches) != tc.want {
			t.Errorf("%q: %d matches %+v, want %d", tc.pattern, len(res.Matches), res.Matches, tc.want)
		}
	}
}
