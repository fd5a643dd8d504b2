package untrusted

import (
	"slices"
	"strings"
	"testing"
)

// flaggedAs fails t unless s, alone and amid prose long enough for the
// vector path at every offset of a 64-byte block, is flagged kind at
// the offset of marker's start, in every path and as the oracle.
func flaggedAs(t *testing.T, kind, before, marker, after string) {
	t.Helper()
	prose := strings.Repeat("the notes explain how the guide is read ", 8)
	for off := 0; off < 70; off++ {
		s := prose[:off] + before + marker + after + prose
		want := Signal{Kind: kind, Count: 1, First: off + len(before)}
		for name, v := range map[string]Verdict{"Screen": Screen(s), "ScreenScan": ScreenScan(s)} {
			if !slices.Contains(v.Signals, want) {
				t.Fatalf("%s of %q: %+v, no %+v", name, before+marker+after, v, want)
			}
		}
		sameAsOracle(t, s)
	}
	sameAsOracle(t, before+marker+after)
}

// notFlagged fails t if s, alone or amid prose, is flagged, or if a
// path differs from the oracle on it.
func notFlagged(t *testing.T, s string) {
	t.Helper()
	prose := strings.Repeat("the notes explain how the guide is read ", 8)
	for _, x := range []string{s, prose + s + prose} {
		if v := Screen(x); v.Flagged {
			t.Errorf("%q flagged: %+v", s, v)
		}
		sameAsOracle(t, x)
	}
}

// TestSpacedColonRole: a chat message's role as pretty-printers that
// space both sides of the colon write it (Jackson's " : ") is role
// markup as the "role": "system" spelling is (issue 30, s59-e); other
// roles are not.
func TestSpacedColonRole(t *testing.T) {
	for _, m := range []string{`"role" : "system"`, `"ROLE" : "Assistant"`, `"role" : "developer"`} {
		flaggedAs(t, KindRoleMarkup, "{ ", m, ", \"content\" : \"x\" }")
	}
	notFlagged(t, `{ "role" : "admin", "name" : "Ada" }`)
	notFlagged(t, `{ "role" : "user", "content" : "hi" }`)
}
