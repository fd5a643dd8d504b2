package fsops

import (
	"context"
	"testing"
)

// The excerpt shows as changed only the lines the edit changes; lines it
// leaves as they were are context.
func TestPatchDiffShowsOnlyChangedLines(t *testing.T) {
	tests := []struct {
		name, file, old, repl, want string
	}{
		{"line with its newline", "alpha\nbeta\ngamma\n", "beta\n", "BETA\n",
			"@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"},
		{"line without its newline", "alpha\nbeta\ngamma\n", "beta", "BETA",
			"@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"},
		{"newline before the line", "alpha\nbeta\ngamma\n", "\nbeta", "\nBETA",
			"@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"},
		{"last line", "alpha\nbeta\n", "beta\n", "BETA\n",
			"@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"},
		{"line deleted", "alpha\nbeta\ngamma\n", "beta\n", "",
			"@@ -1,3 +1,2 @@\n alpha\n-beta\n gamma\n"},
		{"line inserted", "alpha\ngamma\n", "alpha\n", "alpha\nbeta\n",
			"@@ -1,2 +1,3 @@\n alpha\n+beta\n gamma\n"},
		{"newline removed joins two lines", "alpha\nbeta\ngamma\n", "beta\n", "BETA",
			"@@ -1,3 +1,2 @@\n alpha\n-beta\n-gamma\n+BETAgamma\n"},
		{"mid-line", "one two three\nfour\n", "two", "2",
			"@@ -1,2 +1,2 @@\n-one two three\n+one 2 three\n four\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			fx.write(t, "f.txt", tc.file)
			res, err := Patch(context.Background(), fx.ws, PatchParams{Path: "f.txt", OldString: tc.old, NewString: tc.repl})
			if err != nil {
				t.Fatal(err)
			}
			if res.Diff != tc.want {
				t.Fatalf("diff:\n%s\nwant:\n%s", res.Diff, tc.want)
			}
		})
	}
}
