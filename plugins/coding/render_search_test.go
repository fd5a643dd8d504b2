package main

import (
	"testing"

	"demiurge.dev/plugins/coding/fsops"
)

func TestRenderSearch(t *testing.T) {
	tests := []struct {
		name string
		r    fsops.SearchResult
		want string
	}{
		{
			name: "content matches",
			r: fsops.SearchResult{Mode: "content", Count: 2, TotalCount: 2, FilesSearched: 4, Matches: []fsops.SearchMatch{
				{Path: "a.go", Line: 3, Text: "// TODO one"},
				{Path: "b/c.go", Line: 10, Text: "// TODO two"},
			}},
			want: "a.go:3: // TODO one\nb/c.go:10: // TODO two\n[content: count 2, total_count 2, dropped 0; 4 files searched]",
		},
		{
			name: "context lines use '-' and groups are separated",
			r: fsops.SearchResult{Mode: "content", Count: 2, TotalCount: 2, FilesSearched: 2, Matches: []fsops.SearchMatch{
				{Path: "a.go", Line: 5, Text: "match", Before: []string{"three", "four"}, After: []string{"six"}},
				{Path: "b.go", Line: 1, Text: "first", After: []string{"second"}},
			}},
			want: "a.go-3- three\na.go-4- four\na.go:5: match\na.go-6- six\n--\nb.go:1: first\nb.go-2- second\n" +
				"[content: count 2, total_count 2, dropped 0; 2 files searched]",
		},
		{
			// Matches on lines 2 and 4 share line 3 as context; matches on
			// 7 and 8 are each other's context. Every line is written
			// once, and a matching line always as a match.
			name: "overlapping context",
			r: fsops.SearchResult{Mode: "content", Count: 4, TotalCount: 4, FilesSearched: 1, Matches: []fsops.SearchMatch{
				{Path: "f.go", Line: 2, Text: "m2", Before: []string{"l1"}, After: []string{"l3"}},
				{Path: "f.go", Line: 4, Text: "m4", Before: []string{"l3"}, After: []string{"l5"}},
				{Path: "f.go", Line: 7, Text: "m7", Before: []string{"l6"}, After: []string{"m8"}},
				{Path: "f.go", Line: 8, Text: "m8", Before: []string{"m7"}, After: []string{"l9"}},
			}},
			want: "f.go-1- l1\nf.go:2: m2\nf.go-3- l3\nf.go:4: m4\nf.go-5- l5\nf.go-6- l6\nf.go:7: m7\nf.go:8: m8\nf.go-9- l9\n" +
				"[content: count 4, total_count 4, dropped 0; 1 files searched]",
		},
		{
			name: "gap inside one file",
			r: fsops.SearchResult{Mode: "content", Count: 2, TotalCount: 2, FilesSearched: 1, Matches: []fsops.SearchMatch{
				{Path: "f.go", Line: 2, Text: "m2", After: []string{"l3"}},
				{Path: "f.go", Line: 9, Text: "m9", Before: []string{"l8"}},
			}},
			want: "f.go:2: m2\nf.go-3- l3\n--\nf.go-8- l8\nf.go:9: m9\n[content: count 2, total_count 2, dropped 0; 1 files searched]",
		},
		{
			name: "files",
			r:    fsops.SearchResult{Mode: "files", Files: []string{"a.go", "cmd/main.go"}, Count: 2, TotalCount: 2},
			want: "a.go\ncmd/main.go\n[files: count 2, total_count 2, dropped 0; 0 files searched]",
		},
		{
			// As fsops writes it: the note already says what stopped the
			// search and what was left out; the footer says it once.
			name: "stopped by max_results, note repeats the bounds",
			r: fsops.SearchResult{Mode: "content", Count: 1, TotalCount: 10, Dropped: 9, Truncated: true, FilesSearched: 7,
				StoppedBy: []string{"max_results"}, ExcludedSensitive: 1,
				Matches: []fsops.SearchMatch{{Path: "a.go", Line: 2, Text: "x"}},
				Note:    "stopped by max_results; skipped: 1 credential-like paths left out, 1 binary files; 9 more not shown; narrow the path, glob or pattern"},
			want: "a.go:2: x\n[content: count 1, total_count 10, dropped 9; 7 files searched; stopped by max_results; skipped: 1 credential-like paths left out, 1 binary files; 9 more not shown; narrow the path, glob or pattern]",
		},
		{
			name: "a lower bound, and bounds the note does not name",
			r: fsops.SearchResult{Mode: "content", Count: 0, TotalCount: 3, TotalIsLowerBound: true, Dropped: 3, Truncated: true,
				FilesSearched: 5000, StoppedBy: []string{"time_budget", "file_size_cap"}, ExcludedSensitive: 2},
			want: "[content: count 0, total_count at least 3, dropped 3; 5000 files searched; stopped by time_budget, file_size_cap; 2 credential-like paths left out]",
		},
		{
			name: "nothing found",
			r: fsops.SearchResult{Mode: "content", FilesSearched: 7, ExcludedSensitive: 1,
				Note: "no matching lines in 7 files searched; skipped: 1 credential-like paths left out, 1 binary files"},
			want: "[content: count 0, total_count 0, dropped 0; 7 files searched; no matching lines in 7 files searched; skipped: 1 credential-like paths left out, 1 binary files]",
		},
		{
			name: "credential-like paths left out of a complete answer",
			r:    fsops.SearchResult{Mode: "content", Count: 1, TotalCount: 1, FilesSearched: 3, ExcludedSensitive: 1, Matches: []fsops.SearchMatch{{Path: "a", Line: 1, Text: "t"}}},
			want: "a:1: t\n[content: count 1, total_count 1, dropped 0; 3 files searched; 1 credential-like paths left out]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderSearch(tt.r); got != tt.want {
				t.Errorf("renderSearch =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
