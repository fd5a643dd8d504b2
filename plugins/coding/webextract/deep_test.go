package webextract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestHostileNestingStaysBounded: deep nesting keeps the bookkeeping small
// (one main region, indentation capped) so a hostile page costs time in
// proportion to its size, not its square.
func TestHostileNestingStaysBounded(t *testing.T) {
	page := strings.Repeat(`<div role="main"><article><main><ul><li>x`, 5000)
	e := &extractor{all: newTextOut(1 << 20), main: newTextOut(1 << 20), skipOpen: map[atom.Atom]int{}}
	z := html.NewTokenizer(strings.NewReader(page))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		e.token(z, tt)
		if len(e.mains) > 1 {
			t.Fatalf("%d main regions tracked", len(e.mains))
		}
	}
	for _, line := range strings.Split(e.main.String(), "\n") {
		if len(line) > 2*maxIndent+len("- x") {
			t.Fatalf("line of %d bytes: indentation is not capped", len(line))
		}
	}
}
