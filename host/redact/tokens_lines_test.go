package redact

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// replaceWholeText is the token pass as it was before stop 57, the
// reference replaceOnAnchorLines must equal: the pattern over the whole
// text, each match's group put as <redacted:KIND>.
func (t *tokenKind) replaceWholeText(s string) string {
	locs := t.re().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	marker := "<redacted:" + t.kind + ">"
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[2*t.group], loc[2*t.group+1]
		if start < 0 {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(marker)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// applyTokensWholeText is applyTokens as it was before stop 57.
func applyTokensWholeText(s string) string {
	found, any := candidates(s)
	if !any {
		return s
	}
	for i := range tokenTable {
		if found[i] {
			s = tokenTable[i].replaceWholeText(s)
		}
	}
	return s
}

// TestTokenPatternsStayOnALine checks, on each pattern's parsed form, what
// running it on its anchors' lines alone relies on: no part of it matches a
// newline, and it asserts nothing of the text's edges (^, $, \A, \z,
// multi-line ^ and $ would answer differently at a line's edge), but for
// two forms:
//   - a crossesLines entry (the PEM block), which runs to the end of the text;
//   - a last element "one byte or the end of the text" after the replaced
//     group (the AWS secret key's (?:[^A-Za-z0-9/+=]|$)): where the whole
//     text has a newline there, the line alone has its end, and either way
//     the group is the same.
func TestTokenPatternsStayOnALine(t *testing.T) {
	for i := range tokenTable {
		k := &tokenTable[i]
		re, err := syntax.Parse(k.re().String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		parts := []*syntax.Regexp{re}
		if re.Op == syntax.OpConcat {
			parts = re.Sub
		}
		var bad []string
		for j, part := range parts {
			if j == len(parts)-1 && j > 0 && k.group > 0 && isByteOrEnd(part) {
				continue
			}
			bad = append(bad, lineUnsafe(part)...)
		}
		if k.crossesLines != (len(bad) > 0) {
			t.Errorf("%s: crossesLines is %v, and the parts of %s that see past a line are %q", k.kind, k.crossesLines, k.re(), bad)
		}
	}
}

// lineUnsafe are the parts of re that match a newline or assert a text or
// line edge.
func lineUnsafe(re *syntax.Regexp) (out []string) {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		out = append(out, re.String())
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			out = append(out, re.String())
		}
	case syntax.OpCharClass:
		for r := 0; r < len(re.Rune); r += 2 {
			if re.Rune[r] <= '\n' && '\n' <= re.Rune[r+1] {
				out = append(out, re.String())
			}
		}
	}
	for _, sub := range re.Sub {
		out = append(out, lineUnsafe(sub)...)
	}
	return out
}

// isByteOrEnd: re is (?:[class]|$), one character of a class or the end
// of the text.
func isByteOrEnd(re *syntax.Regexp) bool {
	return re.Op == syntax.OpAlternate && len(re.Sub) == 2 &&
		re.Sub[0].Op == syntax.OpCharClass && re.Sub[1].Op == syntax.OpEndText
}

// tokenSamples is a hit of every table entry (bodies as in TestTokenTable).
var tokenSamples = []string{
	"AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A",
	"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"SECRET_KEY:\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
	"ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	"github_pat_11ABCDEFG0123456789abc_0123456789abcdefghijABCDEFGHIJ0123456789abcdefghijABCDEFGHI",
	"glpat-xYz123ABCdef456GHIjk", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
	"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	"sk-ant-api03-Ab3dEf6hIj9kLmN0pQr5tUv8wXyZ1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2-AAAA",
	"sk-proj-Ab3dEf6hIj9kLmN0pQr5tUv8wXyZ1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2",
	"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"npm_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ",
	"pypi-AgEIcHlwaS5vcmcCJGE4ZjM1YTU2LWZhYmQtNDk2Ny1hNjE0LTk5ZjRkNDM5NTAwNwACKlszLCJlZmQ",
	"SK0123456789abcdef0123456789abcdef", "TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef",
	"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",
	"hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "Authorization: Bearer mF_9.B5f-4.1JqM/abcdefghij==",
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
}

// lineShapes are the texts where a line and the whole text could differ.
var lineShapes = []string{
	// The AWS tail takes the newline, or the end of the text.
	"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"x\r\naws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\r\nsecret_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\r\n",
	"secret_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nsecret_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYZ\n",
	"secret_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\nsecret_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\xff",
	// Folded spellings, and a broken UTF-8 sequence at a line's end.
	"aws_ſecret_access_Key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nBEARER abcdefghijklmnopqrstuvwxyz\ntwilio_TOKEN=0123456789abcdef0123456789abcdef",
	"\xc5\nbearer abcdefghijklmnopqrstuvwxyz\xc5\nsecret\xc5",
	// Matches that touch, at the text's edges, and an anchor at its last byte.
	"AKIAIOSFODNN7EXAMPLEAKIAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPLE\nAKIAIOSFODNN7EXAMPLE",
	"Bearer abcdefghijklmnopqrstuvwxyz Bearer abcdefghijklmnopqrstuvwxyz=\nbearer\tabcdefghijklmnopqrstuvwxyz",
	"ghp_16C7e42F292c6912E7710c838347Ae178B4a\nxghp_16C7e42F292c6912E7710c838347Ae178B4a\n\nghp_",
	"\n\n\nSK0123456789abcdef0123456789abcdef\n\n", "eyJ", "\n", "", "bearer\n" + strings.Repeat("a", 40),
	// An anchor on the line before a hit's, and one line's token split by a newline.
	"Bearer\nabcdefghijklmnopqrstuvwxyz\nsecret_key=\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	// PEM blocks: an anchor line before the BEGIN line, two blocks, one open.
	"PRIVATE KEY-----\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\nnext\n-----BEGIN PRIVATE KEY-----\nMIIE",
	// One long line (a JSON document) holding hits far apart.
	`{"a":"` + strings.Repeat("lorem ipsum ", 5000) + `","auth":"Bearer abcdefghijklmnopqrstuvwxyz","k":"AKIAIOSFODNN7EXAMPLE"}`,
}

// tokenPieces build random texts: anchors and their folded spellings, token
// bodies, newlines, word and non-word bytes.
var tokenPieces = func() []string {
	out := []string{"\n", "\n", "\r\n", " ", "\t", "=", ":", "\"", "'", "_", "-", ".", "/", "+", "a", "Z", "0", "é",
		"ſ", "\u212a", "\xff", "\xc5", "aws", "access", "key", "KEY", "_key = ", "auth_token=", "Bearer ", "BEARER\t",
		"-----BEGIN RSA ", "-----END RSA ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "0123456789abcdef0123456789abcdef",
		"abcdefghijklmnopqrstuvwxyz0123", "IOSFODNN7EXAMPLE", "==", "lorem ipsum dolor "}
	for _, k := range tokenTable {
		for _, a := range k.anchors {
			out = append(out, a)
			if k.fold {
				out = append(out, strings.ToUpper(a), strings.ReplaceAll(a, "s", "ſ"), strings.ToUpper(a[:1])+a[1:])
			}
		}
	}
	return append(out, tokenSamples...)
}()

// randomTokenText is n pieces drawn from tokenPieces.
func randomTokenText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(tokenPieces[r.IntN(len(tokenPieces))])
	}
	return b.String()
}

// checkAnchorLines fails when any entry, or the whole pass, redacts s
// otherwise on its anchor lines than over the whole text; it reports the
// kinds that redacted something.
func checkAnchorLines(t *testing.T, s string) (hits []int) {
	t.Helper()
	found, _ := candidates(s) // an entry it misses has no hit (FuzzAnchorScanSound)
	for i := range tokenTable {
		k := &tokenTable[i]
		want := s
		if found[i] {
			want = k.replaceWholeText(s)
		}
		if got := k.replaceOnAnchorLines(s); got != want {
			t.Fatalf("%s on %s", k.kind, differ(s, got, want))
		}
		if want != s {
			hits = append(hits, i)
		}
	}
	if got, want := applyTokens(s), applyTokensWholeText(s); got != want {
		t.Fatalf("applyTokens on %s", differ(s, got, want))
	}
	checkAnchorHits(t, s)
	return hits
}

// everyAnchor is every (position, entry) where one of the entry's anchors
// starts in s, found by trying each anchor at each byte.
func everyAnchor(s string) (out []anchorHit) {
	for at := range len(s) {
		for kind, k := range tokenTable {
			for _, a := range k.anchors {
				if k.fold && hasFoldPrefix(s[at:], a) || !k.fold && strings.HasPrefix(s[at:], a) {
					out = append(out, anchorHit{at: at, kind: kind})
					break
				}
			}
		}
	}
	return out
}

// checkAnchorHits fails unless the scan records every anchor occurrence of
// s, once, in the order of the text, and the lines
// applyTokens takes from those positions are those the search finds.
func checkAnchorHits(t *testing.T, s string) {
	t.Helper()
	found, _, hits := scanAnchors(s, []anchorHit{})
	got := slices.Clone(hits)
	slices.SortStableFunc(got, func(x, y anchorHit) int { return x.at - y.at })
	if !slices.Equal(got, hits) {
		t.Fatalf("the scan's positions are out of order in %q: %v", s, hits)
	}
	slices.SortFunc(got, func(x, y anchorHit) int { return cmp.Or(x.at-y.at, x.kind-y.kind) })
	if want := everyAnchor(s); !slices.Equal(got, want) {
		t.Fatalf("the scan recorded %v in %q, want every anchor: %v", hits, s, want)
	}
	for i := range tokenTable {
		if !found[i] {
			continue
		}
		k := &tokenTable[i]
		if got, want := k.hitLines(s, i, hits, nil), k.anchorLines(s, nil); !slices.Equal(got, want) {
			t.Fatalf("%s: the lines of the recorded anchors are %v in %q, the search finds %v", k.kind, got, s, want)
		}
	}
}

// TestAnchorHitsBounded: a text with more anchors than maxAnchorHits is
// scanned without recording them (the entries' lines are then searched),
// and redacts as over the whole text; one with exactly maxAnchorHits keeps
// them all.
func TestAnchorHitsBounded(t *testing.T) {
	line := "SK0123456789abcdef0123456789abcdef SK\n" // two anchors, one hit
	at := strings.Repeat(line, maxAnchorHits/2)
	if _, _, hits := scanAnchors(at, []anchorHit{}); len(hits) != maxAnchorHits {
		t.Fatalf("%d anchors recorded of %d", len(hits), maxAnchorHits)
	}
	over := at + "SK"
	twilio := slices.IndexFunc(tokenTable, func(k tokenKind) bool { return k.kind == "twilio_api_key" })
	if found, _, hits := scanAnchors(over, []anchorHit{}); hits != nil || !found[twilio] {
		t.Fatalf("past the bound: %d anchors recorded, found %v", len(hits), found[twilio])
	}
	want := strings.Repeat("<redacted:twilio_api_key> SK\n", maxAnchorHits/2) + "SK"
	if got := applyTokens(over); got != want || applyTokensWholeText(over) != want {
		t.Fatalf("past the bound: %s", differ(over, got, want))
	}
}

// differ shows where the two results part, and the text (cut when long).
func differ(s, got, want string) string {
	at := 0
	for at < min(len(got), len(want)) && got[at] == want[at] {
		at++
	}
	cut := func(x string, from int) string {
		from = max(0, from-40)
		return fmt.Sprintf("%q", x[from:min(len(x), from+120)])
	}
	return fmt.Sprintf("%s (%d bytes):\nanchor lines %s\nwhole text   %s\n(from byte %d)", cut(s, 40), len(s), cut(got, at), cut(want, at), max(0, at-40))
}

// TestAnchorLinesAsWholeText: running each pattern on its anchors' lines
// gives the whole-text result byte for byte, on the shapes where a line
// differs from the text and on random texts of anchors, bodies and
// newlines; every entry redacts something in them, many on a line that is
// not the text's first.
func TestAnchorLinesAsWholeText(t *testing.T) {
	hit := make([]int, len(tokenTable))
	later := 0 // random texts with a hit on a later line
	for _, s := range append(slices.Clone(lineShapes), tokenSamples...) {
		for _, i := range checkAnchorLines(t, s) {
			hit[i]++
		}
	}
	r := rand.New(rand.NewPCG(57, 1))
	for n := range 3000 {
		s := randomTokenText(r, 1+n%40)
		hits := checkAnchorLines(t, s)
		for _, i := range hits {
			hit[i]++
		}
		if first, _, ok := strings.Cut(s, "\n"); ok && len(hits) > 0 && strings.HasPrefix(applyTokens(s), first+"\n") {
			later++
		}
	}
	for i, n := range hit {
		if n < 3 {
			t.Errorf("%s redacted %d times: the texts do not exercise it", tokenTable[i].kind, n)
		}
	}
	if later < 300 {
		t.Errorf("only %d random texts have a hit past their first line", later)
	}
}

// FuzzAnchorLinesAsWholeText: any text redacts the same on the anchor
// lines as over the whole text.
func FuzzAnchorLinesAsWholeText(f *testing.F) {
	for _, s := range append(slices.Clone(lineShapes), tokenSamples...) {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(57, 2))
	for range 20 {
		f.Add(randomTokenText(r, 30))
	}
	f.Fuzz(func(t *testing.T, s string) { checkAnchorLines(t, s) })
}
