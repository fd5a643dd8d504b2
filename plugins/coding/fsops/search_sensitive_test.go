package fsops

import (
	"strings"
	"testing"
)

// TestSearchSingleSensitiveFile: search_files aimed at one credential-like
// file (path: .env) returns none of its lines and no file, only the count
// of what it left out; in files mode too. (A mutation run found the
// single-file branch unguarded: dropping its sensitive check survived.)
func TestSearchSingleSensitiveFile(t *testing.T) {
	fx := searchFixture(t)
	for _, p := range []SearchParams{
		{Pattern: "TODO", Path: ".env"},
		{Pattern: "secret", Path: ".env"},
		{Pattern: "TODO", Path: ".env", Mode: "files"},
		{Pattern: ".", Path: ".ssh/config"},
	} {
		res := runSearch(t, fx, p, defaultSearchLimits)
		if len(res.Matches) != 0 || len(res.Files) != 0 || res.ExcludedSensitive != 1 {
			t.Errorf("%+v: matches %+v files %v excluded %d; want nothing but one excluded", p, res.Matches, res.Files, res.ExcludedSensitive)
		}
		for _, m := range res.Matches {
			if strings.Contains(m.Text, "secret") {
				t.Fatalf("credential content returned: %+v", m)
			}
		}
	}
}
