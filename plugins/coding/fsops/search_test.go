package fsops

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// searchFixture is a small tree with one of everything a search meets.
func searchFixture(t *testing.T) *fixture {
	fx := newFixture(t)
	fx.write(t, "src/a.go", "package a\nfunc Alpha() {}\n// TODO one\n")
	fx.write(t, "src/b.go", "package b\n// TODO two\n// todo three\n")
	fx.write(t, "src/deep/x/y/z.go", "package z\n// TODO deep\n")
	fx.write(t, "src/deep/x/main.go", "package main\n")
	fx.write(t, "cmd/tool/main.go", "package main // TODO cmd\n")
	fx.write(t, "docs/readme.md", "intro\nTODO in docs\nend\n")
	fx.write(t, ".env", "TODO=secret\n")
	fx.write(t, ".ssh/config", "TODO\n")
	fx.write(t, ".git/HEAD", "TODO\n")
	fx.write(t, "web/node_modules/lib/index.js", "TODO\n")
	fx.write(t, "bin/blob.bin", "TODO\x00\x01\x02")
	fx.symlink(t, "src/a.go", "link.go")
	fx.write(t, "hard.go", "TODO hard\n")
	if err := os.Link(fx.in("hard.go"), fx.in("hard2.go")); err != nil {
		t.Fatal(err)
	}
	fx.fifo(t, "pipe")
	return fx
}

func runSearch(t *testing.T, fx *fixture, p SearchParams, lim searchLimits) SearchResult {
	t.Helper()
	res, err := within(t, 10*time.Second, func(ctx context.Context) (SearchResult, error) {
		return search(ctx, fx.ws, p, lim)
	})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, res)
	return res
}

// checkCounts holds for every result: the counts mean what they say.
func checkCounts(t *testing.T, res SearchResult) {
	t.Helper()
	items := len(res.Matches) + len(res.Files)
	if res.Count != items || res.Dropped != res.TotalCount-res.Count || res.Dropped < 0 {
		t.Fatalf("count %d items %d total %d dropped %d", res.Count, items, res.TotalCount, res.Dropped)
	}
	if res.Truncated != (res.Dropped > 0 || res.TotalIsLowerBound) {
		t.Fatalf("truncated %v with dropped %d lower bound %v", res.Truncated, res.Dropped, res.TotalIsLowerBound)
	}
	if res.Truncated && len(res.StoppedBy) == 0 {
		t.Fatalf("truncated without a bound named: %+v", res)
	}
	if res.Count == 0 && res.Note == "" {
		t.Fatalf("an empty result without an explanation")
	}
	if !sort.SliceIsSorted(res.Matches, func(i, j int) bool { return matchLess(res.Matches[i], res.Matches[j]) }) || !sort.StringsAreSorted(res.Files) {
		t.Fatalf("results not sorted")
	}
}

func matchKeys(res SearchResult) []string {
	var out []string
	for _, m := range res.Matches {
		out = append(out, fmt.Sprintf("%s:%d", m.Path, m.Line))
	}
	return out
}

func TestSearchContent(t *testing.T) {
	fx := searchFixture(t)
	res := runSearch(t, fx, SearchParams{Pattern: "TODO"}, defaultSearchLimits)
	want := []string{"cmd/tool/main.go:1", "docs/readme.md:2", "src/a.go:3", "src/b.go:2", "src/deep/x/y/z.go:2"}
	if got := matchKeys(res); !slices.Equal(got, want) {
		t.Fatalf("matches %v, want %v", got, want)
	}
	if res.Matches[1].Text != "TODO in docs" || res.Mode != "content" {
		t.Fatalf("match %+v", res.Matches[1])
	}
	if res.TotalCount != 5 || res.Truncated || res.StoppedBy != nil {
		t.Fatalf("counts %+v", res)
	}
	if res.ExcludedSensitive != 2 { // .env and .ssh/
		t.Errorf("excluded_sensitive = %d, want 2", res.ExcludedSensitive)
	}
	k := res.Skipped
	if k.Dirs != 2 || !slices.Equal(k.DirNames, []string{".git", "node_modules"}) || k.Binary != 1 || k.Symlinks != 1 || k.HardLinked != 2 || k.Special != 1 {
		t.Errorf("skipped %+v", k)
	}
	for _, m := range res.Matches {
		if strings.Contains(m.Text, "secret") {
			t.Fatalf("credential content returned: %+v", m)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	fx := searchFixture(t)
	tests := []struct {
		name  string
		p     SearchParams
		want  []string // match keys, or file paths in files mode
		total int
	}{
		{"case insensitive", SearchParams{Pattern: "todo", CaseInsensitive: true, Glob: "src/*.go"}, []string{"src/a.go:3", "src/b.go:2", "src/b.go:3"}, 3},
		{"regex with no literal", SearchParams{Pattern: `^\w+ \w+$`, Glob: "*.go"}, []string{"src/a.go:1", "src/b.go:1", "src/deep/x/main.go:1", "src/deep/x/y/z.go:1"}, 4},
		{"star glob is recursive", SearchParams{Pattern: "TODO", Glob: "*.go"}, []string{"cmd/tool/main.go:1", "src/a.go:3", "src/b.go:2", "src/deep/x/y/z.go:2"}, 4},
		{"anchored glob", SearchParams{Pattern: "TODO", Glob: "src/*.go"}, []string{"src/a.go:3", "src/b.go:2"}, 2},
		{"double star glob", SearchParams{Pattern: "TODO", Glob: "src/**/z.go"}, []string{"src/deep/x/y/z.go:2"}, 1},
		{"brace glob", SearchParams{Pattern: "TODO", Glob: "*.{md,txt}"}, []string{"docs/readme.md:2"}, 1},
		{"sub directory", SearchParams{Pattern: "TODO", Path: "src/deep"}, []string{"src/deep/x/y/z.go:2"}, 1},
		{"glob relative to the sub directory", SearchParams{Pattern: "TODO", Path: "src", Glob: "deep/**"}, []string{"src/deep/x/y/z.go:2"}, 1},
		{"one file", SearchParams{Pattern: "TODO|package", Path: "src/b.go"}, []string{"src/b.go:1", "src/b.go:2"}, 2},
		{"files mode with a glob", SearchParams{Mode: "files", Glob: "main.go"}, []string{"cmd/tool/main.go", "src/deep/x/main.go"}, 2},
		{"files mode by default without a pattern", SearchParams{Glob: "**/x/**/*.go"}, []string{"src/deep/x/main.go", "src/deep/x/y/z.go"}, 2},
		{"files mode with a pattern", SearchParams{Mode: "files", Pattern: "TODO", Glob: "src/**"}, []string{"src/a.go", "src/b.go", "src/deep/x/y/z.go"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runSearch(t, fx, tc.p, defaultSearchLimits)
			got := res.Files
			if res.Mode == "content" {
				got = matchKeys(res)
			}
			if !slices.Equal(got, tc.want) || res.TotalCount != tc.total {
				t.Fatalf("got %v (total %d), want %v (total %d)", got, res.TotalCount, tc.want, tc.total)
			}
		})
	}
}

func TestSearchContextLines(t *testing.T) {
	fx := searchFixture(t)
	res := runSearch(t, fx, SearchParams{Pattern: "TODO", Path: "docs", ContextLines: 3}, defaultSearchLimits)
	m := res.Matches[0]
	if !slices.Equal(m.Before, []string{"intro"}) || !slices.Equal(m.After, []string{"end"}) {
		t.Fatalf("context %+v", m)
	}
}

func TestSearchRefusals(t *testing.T) {
	fx := searchFixture(t)
	tests := []struct {
		name string
		p    SearchParams
		kind error
	}{
		{"bad regex", SearchParams{Pattern: "(unclosed"}, ErrInvalidArgument},
		{"unknown mode", SearchParams{Pattern: "x", Mode: "names"}, ErrInvalidArgument},
		{"files mode without glob or pattern", SearchParams{Mode: "files"}, ErrInvalidArgument},
		{"content mode without pattern", SearchParams{Mode: "content", Glob: "*.go"}, ErrInvalidArgument},
		{"bad glob", SearchParams{Pattern: "x", Glob: "[a-"}, ErrInvalidArgument},
		{"unclosed brace", SearchParams{Pattern: "x", Glob: "*.{go"}, ErrInvalidArgument},
		{"outside", SearchParams{Pattern: "x", Path: "../outside"}, ErrOutsideWorkspace},
		{"missing path", SearchParams{Pattern: "x", Path: "nope"}, ErrNotFound},
		{"fifo as path", SearchParams{Pattern: "x", Path: "pipe"}, ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := within(t, 5*time.Second, func(ctx context.Context) (SearchResult, error) {
				return Search(ctx, fx.ws, tc.p)
			})
			wantKind(t, err, tc.kind)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, fx.ws, SearchParams{Pattern: "TODO"}); err == nil {
		t.Fatal("a cancelled search returned a result")
	}
}

// Every bound that stops a search is named, the total becomes a lower
// bound where the walk was cut, and an empty answer says why.
func TestSearchBounds(t *testing.T) {
	fx := searchFixture(t)
	lim := func(f func(*searchLimits)) searchLimits {
		l := defaultSearchLimits
		f(&l)
		return l
	}
	tests := []struct {
		name       string
		p          SearchParams
		lim        searchLimits
		stopped    []string
		lowerBound bool
		count      int
	}{
		{"max results", SearchParams{Pattern: "TODO", MaxResults: 2}, defaultSearchLimits, []string{"max_results"}, false, 2},
		{"file size cap", SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.maxFileSize = 24 }), []string{"file_size_cap"}, true, 2},
		{"walk entries", SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.maxWalkEntries = 3 }), []string{"walk_entries"}, true, -1},
		{"candidate files", SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.maxCandidates = 1 }), []string{"max_candidate_files"}, true, -1},
		{"time budget", SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.timeBudget = -time.Second }), []string{"time_budget"}, true, 0},
		{"output budget", SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.maxOutputChars = 40 }), []string{"output_budget"}, false, 1},
		{"files mode walk entries", SearchParams{Glob: "*.go"}, lim(func(l *searchLimits) { l.maxWalkEntries = 2 }), []string{"walk_entries"}, true, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runSearch(t, fx, tc.p, tc.lim)
			if !slices.Equal(res.StoppedBy, tc.stopped) || res.TotalIsLowerBound != tc.lowerBound || !res.Truncated {
				t.Fatalf("stopped_by %v lower bound %v truncated %v; want %v %v true", res.StoppedBy, res.TotalIsLowerBound, res.Truncated, tc.stopped, tc.lowerBound)
			}
			if tc.count >= 0 && res.Count != tc.count {
				t.Fatalf("count %d, want %d", res.Count, tc.count)
			}
			if !strings.Contains(res.Note, "stopped by") {
				t.Fatalf("note %q does not name the bound", res.Note)
			}
		})
	}
	res := runSearch(t, fx, SearchParams{Pattern: "TODO"}, lim(func(l *searchLimits) { l.maxFileSize = 20 }))
	if res.Skipped.TooLarge == 0 || len(res.Skipped.TooLargeFiles) == 0 {
		t.Fatalf("too-large files not named: %+v", res.Skipped)
	}
	res = runSearch(t, fx, SearchParams{Pattern: "no such text anywhere"}, defaultSearchLimits)
	if res.Count != 0 || res.Truncated || !strings.Contains(res.Note, "no matching lines in") || !strings.Contains(res.Note, "credential-like") {
		t.Fatalf("empty result: %+v", res)
	}
}

// However the parallel walk is scheduled, a truncated answer is the
// smallest max_results items in (path, line) order, and the counts are
// exact.
func TestSearchDeterministicSelection(t *testing.T) {
	fx := newFixture(t)
	var all []string
	for d := range 12 {
		for f := range 25 {
			rel := fmt.Sprintf("d%02d/f%02d.txt", d, f)
			fx.write(t, rel, "match\nno\nmatch\n")
			all = append(all, rel+":1", rel+":3")
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for range 5 {
		res := runSearch(t, fx, SearchParams{Pattern: "^match$", MaxResults: 17}, defaultSearchLimits)
		if got := matchKeys(res); !slices.Equal(got, all[:17]) {
			t.Fatalf("selection %v, want %v", got, all[:17])
		}
		if res.TotalCount != len(all) || res.Dropped != len(all)-17 || res.TotalIsLowerBound {
			t.Fatalf("counts %+v", res)
		}
		files := runSearch(t, fx, SearchParams{Glob: "f0[0-4].txt", MaxResults: 7}, defaultSearchLimits)
		if files.TotalCount != 60 || files.Count != 7 || files.Files[0] != "d00/f00.txt" || files.Files[6] != "d01/f01.txt" {
			t.Fatalf("files %+v", files)
		}
	}
}
