package redact

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// foldSamples is a hit of each case-insensitive table entry, by kind.
var foldSamples = map[string]string{
	"aws_secret_access_key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"twilio_auth_token":     "TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef",
	"bearer_token":          "Authorization: Bearer mF_9.B5f-4.1JqM/abcdefghij==",
}

// asciiFolders are every rune whose simple-fold orbit holds an ASCII
// letter (Go's (?i) matches a letter by its orbit): the ASCII letters,
// ſ (U+017F) and K (U+212A) today, found by walking every rune.
func asciiFolders() map[rune]bool {
	out := map[rune]bool{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf && unicode.IsLetter(f) {
				out[r] = true
				break
			}
		}
	}
	return out
}

// TestAnchorScanFoldsAsThePatterns: the anchor scan and the patterns
// agree on every spelling of a case-insensitive keyword. Each letter of
// each such anchor, in a real hit, is replaced in turn by every rune that
// folds to some ASCII letter: the text is a hit of the pattern exactly
// when the scan finds the entry, and then it is redacted. Before, the scan
// compared ASCII cases only, so "aws_ſecret_access_key = …" (ſ is a long
// s) matched the pattern but was never tried, and the key was kept.
func TestAnchorScanFoldsAsThePatterns(t *testing.T) {
	folders := asciiFolders()
	if !folders['ſ'] || !folders['\u212a'] || len(folders) != 54 {
		t.Fatalf("%d runes fold to an ASCII letter, want the 52 letters, ſ and K", len(folders))
	}
	for i := range tokenTable {
		k := &tokenTable[i]
		src := k.re().String()
		if k.fold != strings.Contains(src, "(?i") {
			t.Errorf("%s: fold %v, but the pattern %s", k.kind, k.fold, src)
		}
		if !k.fold {
			continue
		}
		sample, ok := foldSamples[k.kind]
		if !ok {
			t.Errorf("%s is case-insensitive and has no sample here", k.kind)
			continue
		}
		for _, anchor := range k.anchors {
			if anchor != strings.ToLower(anchor) || !isASCII(anchor) {
				t.Fatalf("%s: anchor %q is not lower-case ASCII", k.kind, anchor)
			}
			at := strings.Index(strings.ToLower(sample), anchor)
			if at < 0 {
				t.Fatalf("%s: sample %q lacks anchor %q", k.kind, sample, anchor)
			}
			for pos := range len(anchor) {
				for r := range folders {
					text := "x " + sample[:at+pos] + string(r) + sample[at+pos+1:] + " y"
					hit := k.re().MatchString(text)
					found, _ := candidates(text)
					if hit != found[i] {
						t.Errorf("%s: %q: the pattern matches %v, the scan finds %v", k.kind, text, hit, found[i])
					}
					if strings.EqualFold(string(r), anchor[pos:pos+1]) && !strings.Contains(applyTokens(text), "<redacted:"+k.kind+">") {
						t.Errorf("%s: %q (%U for %q) not redacted: %q", k.kind, text, r, anchor[pos], applyTokens(text))
					}
				}
			}
		}
	}
}
