package redact

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// tokenKind is one well-known credential format. Anchors are literal
// substrings one of which every match contains; a text without any of them
// skips the regexp, which keeps the table cheap on ordinary output.
type tokenKind struct {
	kind    string
	anchors []string
	fold    bool                  // anchors are lower case and compared as (?i) compares: by simple folding
	re      func() *regexp.Regexp // compiled on first use: most runs never need most entries
	group   int                   // the submatch to replace; 0 = the whole match
	// crossesLines: a match may hold a newline, so the pattern runs from
	// the line of the first anchor to the end of the text, not on the
	// anchors' lines alone (tokens_lines.go).
	crossesLines bool
}

// tokenTable is applied in order: the PEM block first (it spans lines), and
// Anthropic before OpenAI because both begin with "sk-".
var tokenTable = []tokenKind{
	{kind: "private_key", anchors: []string{"PRIVATE KEY-----"}, crossesLines: true,
		re: lazyRegexp(`-----BEGIN[ A-Z0-9]*PRIVATE KEY-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY-----|[\s\S]*)`)},
	{kind: "aws_access_key_id", anchors: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA"},
		re: lazyRegexp(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b`)},
	{kind: "aws_secret_access_key", anchors: []string{"secret"}, fold: true,
		re:    lazyRegexp(`(?i)(?:aws)?_?secret_?(?:access)?_?key["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		group: 1},
	{kind: "github_token", anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re: lazyRegexp(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`)},
	{kind: "github_token", anchors: []string{"github_pat_"},
		re: lazyRegexp(`\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b`)},
	{kind: "gitlab_token", anchors: []string{"glpat-"},
		re: lazyRegexp(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{kind: "slack_token", anchors: []string{"xox"},
		re: lazyRegexp(`\bxox[baprs]-[0-9]{6,}-[A-Za-z0-9-]{8,}`)},
	{kind: "slack_webhook", anchors: []string{"hooks.slack.com"},
		re: lazyRegexp(`https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}`)},
	{kind: "anthropic_api_key", anchors: []string{"sk-ant-"},
		re: lazyRegexp(`\bsk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{32,}`)},
	{kind: "openai_api_key", anchors: []string{"sk-"},
		re: lazyRegexp(`\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{40,})`)},
	{kind: "google_api_key", anchors: []string{"AIza"},
		re: lazyRegexp(`\bAIza[0-9A-Za-z_-]{35}`)},
	{kind: "stripe_key", anchors: []string{"_live_", "_test_"},
		re: lazyRegexp(`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b|\bpk_live_[0-9A-Za-z]{24,}\b`)},
	{kind: "jwt", anchors: []string{"eyJ"},
		re: lazyRegexp(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`)},
	{kind: "npm_token", anchors: []string{"npm_"},
		re: lazyRegexp(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{kind: "pypi_token", anchors: []string{"pypi-"},
		re: lazyRegexp(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`)},
	{kind: "twilio_api_key", anchors: []string{"SK"},
		re: lazyRegexp(`\bSK[0-9a-f]{32}\b`)},
	{kind: "twilio_auth_token", anchors: []string{"twilio"}, fold: true,
		re:    lazyRegexp(`(?i)twilio[a-z_]*token["']?[ \t]*[:=][ \t]*["']?([0-9a-f]{32})\b`),
		group: 1},
	{kind: "sendgrid_api_key", anchors: []string{"SG."},
		re: lazyRegexp(`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`)},
	{kind: "huggingface_token", anchors: []string{"hf_"},
		re: lazyRegexp(`\bhf_[A-Za-z0-9]{34,}\b`)},
	{kind: "bearer_token", anchors: []string{"bearer"}, fold: true,
		re:    lazyRegexp(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)`),
		group: 1},
}

// anchorTables are built on first use, like the expressions: a command
// that redacts nothing should not pay for them at start-up.
var anchorTables = sync.OnceValue(func() *anchorSet {
	return &anchorSet{index: buildAnchorIndex(), pairs: buildAnchorPairs()}
})

type anchorSet struct {
	index [256][]anchorRef
	pairs [256][4]uint64
}

// buildAnchorIndex maps a first byte to the anchors starting with it (for
// case-insensitive anchors, the first byte of every spelling of their first
// letter), so one pass over a text finds which table entries can match at
// all.
func buildAnchorIndex() (idx [256][]anchorRef) {
	for i, t := range tokenTable {
		for _, a := range t.anchors {
			ref := anchorRef{anchor: a, kind: i, fold: t.fold}
			for _, v := range spellings(a[0], t.fold) {
				idx[v[0]] = append(idx[v[0]], ref)
			}
		}
	}
	return idx
}

// buildAnchorPairs holds the first two bytes of every anchor (of every
// spelling of a case-insensitive one) as a bit set: a position whose two
// bytes are not in it starts no anchor, which rules out nearly every
// position of ordinary text with one lookup. Every anchor is at least two
// bytes long.
func buildAnchorPairs() (set [256][4]uint64) {
	for _, t := range tokenTable {
		for _, a := range t.anchors {
			for _, v0 := range spellings(a[0], t.fold) {
				for _, v1 := range spellings(a[1], t.fold) {
					c0, c1 := (v0 + v1)[0], (v0 + v1)[1]
					set[c0][c1>>6] |= 1 << (c1 & 63)
				}
			}
		}
	}
	return set
}

// spellings are c, and when fold is set every rune of its simple-fold
// orbit, which is what (?i) matches it with: S and ſ (U+017F) for s, K and
// K (U+212A) for k.
func spellings(c byte, fold bool) []string {
	out := []string{string(rune(c))}
	if fold {
		for f := unicode.SimpleFold(rune(c)); f != rune(c); f = unicode.SimpleFold(f) {
			out = append(out, string(f))
		}
	}
	return out
}

// hasFoldPrefix reports that s begins with a spelling of anchor (lower-case
// ASCII) under simple folding, as (?i) matches it.
func hasFoldPrefix(s, anchor string) bool {
	for k := range len(anchor) {
		if len(s) == 0 {
			return false
		}
		a := anchor[k]
		if c := s[0]; c < utf8.RuneSelf {
			if c != a && !('a' <= a && a <= 'z' && c == a-'a'+'A') {
				return false
			}
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if !foldsTo(r, rune(a)) {
			return false
		}
		s = s[n:]
	}
	return true
}

// foldsTo reports that r is in a's simple-fold orbit.
func foldsTo(r, a rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

type anchorRef struct {
	anchor string
	kind   int
	fold   bool
}

// candidates marks the table entries whose anchors occur in s.
func candidates(s string) (found [64]bool, any bool) {
	found, any, _ = scanAnchors(s, nil)
	return found, any
}

// anchorHit is an anchor of table entry kind starting at s[at:].
type anchorHit struct{ at, kind int }

// maxAnchorHits bounds the positions one scan records (16 bytes each, so
// 64 KiB; the list grows from 32 on the stack, ~250 KiB allocated in all
// when it fills). A text with more anchors than that (an anchor every 256
// bytes of a MiB) has its entries' anchor lines searched for instead
// (anchorLines): its lines are then mostly anchor lines, where the
// patterns cost far more than the search.
const maxAnchorHits = 1 << 12

// scanAnchors marks the table entries whose anchors occur in s. When hits
// is not nil it also appends to it every anchor occurrence, in the order of
// the text, and returns it; it returns nil hits when there are more than
// maxAnchorHits.
func scanAnchors(s string, hits []anchorHit) (found [64]bool, any bool, _ []anchorHit) {
	a := anchorTables()
	pairs := &a.pairs
	for j := 1; j < len(s); j++ { // j is the second byte of the pair at i
		i, c0, c1 := j-1, s[j-1], s[j]
		if pairs[c0][c1>>6]&(1<<(c1&63)) == 0 {
			continue
		}
		for _, r := range a.index[c0] {
			if found[r.kind] && hits == nil {
				continue
			}
			if r.fold && hasFoldPrefix(s[i:], r.anchor) || !r.fold && strings.HasPrefix(s[i:], r.anchor) {
				found[r.kind], any = true, true
				if hits != nil && len(hits) == maxAnchorHits {
					hits = nil
				} else if hits != nil {
					hits = append(hits, anchorHit{at: i, kind: r.kind})
				}
			}
		}
	}
	return found, any, hits
}

// applyTokens replaces every table hit in s with <redacted:KIND>. Each
// entry's pattern runs on the lines holding its anchors, where the scan
// found them; once an entry has replaced something those positions are the
// old text's, and the entries after it search the new text for theirs.
func applyTokens(s string) string {
	var hitBuf [32]anchorHit
	found, any, hits := scanAnchors(s, hitBuf[:0])
	if !any {
		return s
	}
	var spanBuf [8]lineSpan
	for i := range tokenTable {
		if !found[i] {
			continue
		}
		t := &tokenTable[i]
		var lines []lineSpan
		if hits != nil {
			lines = t.hitLines(s, i, hits, spanBuf[:0])
		} else {
			lines = t.anchorLines(s, spanBuf[:0])
		}
		var replaced bool
		if s, replaced = t.replaceOnLines(s, lines); replaced {
			hits = nil
		}
	}
	return s
}
