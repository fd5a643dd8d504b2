package shellguard

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// candidates returns the extra readings of raw worth reviewing: with ANSI
// escape sequences removed, with invisible format characters removed, and
// NFKC-normalised (fullwidth and compatibility forms folded to ASCII).
// They only add checks: the raw reading is what the shell runs. Readings
// equal to raw or to an earlier one are left out.
func candidates(raw string) []string {
	if isASCII(raw) && !strings.ContainsRune(raw, 0x1b) {
		return nil
	}
	var out []string
	add := func(s string) {
		if s != raw && !containsString(out, s) {
			out = append(out, s)
		}
	}
	stripped := stripANSI(raw)
	add(stripped)
	visible := stripInvisible(stripped)
	add(visible)
	for _, s := range []string{raw, stripped, visible} {
		// ASCII is always in NFKC; checking it costs allocations.
		if !isASCII(s) && !norm.NFKC.IsNormalString(s) {
			add(norm.NFKC.String(s))
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// stripANSI removes CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST) and
// two-byte ESC sequences, plus the 8-bit CSI (U+009B) form.
func stripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i = skipCSI(s, i+2)
		case r == 0x9b:
			i = skipCSI(s, i+n)
		case r == 0x1b && i+1 < len(s) && s[i+1] == ']':
			i = skipOSC(s, i+2)
		case r == 0x1b && i+1 < len(s):
			i += 2
		case r == 0x1b:
			i++
		default:
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	return b.String()
}

// skipCSI skips parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipOSC skips to the BEL or ESC \ that ends an operating system command.
func skipOSC(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		}
		i++
	}
	return i
}

// stripInvisible drops format characters (zero-width spaces and joiners,
// bidi controls, the BOM) that display as nothing.
func stripInvisible(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hiddenText reports whether s holds characters that can hide what a
// reviewer sees: control characters other than tab and newline, and
// invisible format characters.
func hiddenText(s string) bool {
	for _, r := range s {
		// Printable ASCII, tab and newline hide nothing (the only format
		// character below U+0100 is the soft hyphen, U+00AD).
		if r >= 0x20 && r < 0x7f || r == '\t' || r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}
