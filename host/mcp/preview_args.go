package mcp

import (
	"fmt"
	"math"
	"strings"

	hredact "demiurge.dev/host/redact"
)

// previewArg is one launch argument as the approver sees it: the
// declaration's known secrets and well-known token formats replaced, and
// an argument that looks like a bare credential (long, random, without
// the separators of a path, address or package name) hidden whole.
func (p *plan) previewArg(i int, a string) string {
	shown := hredact.Text(p.secrets.String(a))
	if shown == a && looksLikeToken(a) {
		return fmt.Sprintf("<redacted:arg %d>", i)
	}
	return shown
}

// looksLikeToken: at least 20 characters of letters, digits and "-_+=.~",
// both letters and digits, and close to random (over 3.9 bits of entropy
// per character, which names and versions of that length fall short of).
func looksLikeToken(s string) bool {
	if len(s) < 20 || len(s) > 4096 {
		return false
	}
	letters, digits := false, false
	var counts [128]int
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters = true
		case '0' <= c && c <= '9':
			digits = true
		case strings.IndexByte("-_+=.~", c) >= 0:
		default:
			return false
		}
		counts[c]++
	}
	if !letters || !digits {
		return false
	}
	var h float64
	n := float64(len(s))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h > 3.9
}
