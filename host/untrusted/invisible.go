package untrusted

// Invisible characters inside markup: a soft hyphen or a zero-width
// character between its bytes ("<|im\u200b_start|>", "[IN\u00adST]",
// "\n\nHu\u200bman:") is not seen by a reader, and one alone is no
// zero-width run (KindZeroWidthRun needs two). The markup tests step
// over them after a spelling's first three bytes (mayOpenMarkup's key;
// the kernels' quick key reads the fourth too, and passes an invisible
// character's first byte there: invisibleLeads), inside a special token
// and before its '>', and in and after a turn's role (after its first
// letter) (issue 30, stop 59).

// invisibleLen is the length of the soft hyphen (U+00AD) or zero-width
// character (U+200B–200F, U+2060–2064, U+FEFF) that starts s, else 0.
// (The zero-width ones are invisibleAt's invZeroWidth.)
func invisibleLen(s string) int {
	if len(s) >= 2 && s[0] == 0xC2 && s[1] == 0xAD {
		return 2
	}
	if len(s) > 0 && (s[0] == 0xE2 || s[0] == 0xEF) {
		if n, kind := invisibleAt(s, 0); kind == invZeroWidth {
			return n
		}
	}
	return 0
}

// invisibleLeads are the first bytes of the characters invisibleLen
// finds: the quick key passes them as a markup's fourth byte
// (markupQuick), where the markup tests step over them.
var invisibleLeads = []byte{0xC2, 0xE2, 0xEF}

// skipInvisible is the first index from j of s not in an invisible
// character (invisibleLen).
func skipInvisible(s string, j int) int {
	for j < len(s) {
		n := invisibleLen(s[j:])
		if n == 0 {
			break
		}
		j += n
	}
	return j
}
