package fsops

import (
	"path"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		glob string
		rel  string
		want bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "a/b/c/main.go", true}, // no '/': the name at any depth
		{"*.go", "a/b/main.txt", false},
		{"*.go", "go/main", false},
		{"main.go", "cmd/x/main.go", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/deep/a.go", false}, // '/' anchors to the search directory
		{"src/*.go", "other/src/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"dir/**/x.go", "dir/x.go", true},
		{"dir/**/x.go", "dir/a/b/x.go", true},
		{"dir/**/x.go", "other/dir/x.go", false},
		{"dir/**", "dir/a/b", true},
		{"dir/", "dir/a", true},
		{"dir/**", "dirx/a", false},
		{"./src/*.go", "src/a.go", true},
		{"/src/*.go", "src/a.go", true},
		{"/*.go", "a.go", true},
		{"/*.go", "x/a.go", false}, // a leading '/' anchors too
		{"./*.go", "x/a.go", false},
		{"*.{go,md}", "x/readme.md", true},
		{"*.{go,md}", "x/readme.txt", false},
		{"{cmd,pkg}/**/*.go", "pkg/a/b.go", true},
		{"{cmd,pkg}/**/*.go", "internal/a/b.go", false},
		{"a**b.go", "axxb.go", true},
		{"a**b.go", "a/x/b.go", false},
		{"f?.txt", "d/f1.txt", true},
		{"[a-c]*.txt", "b.txt", true},
		{"[a-c]*.txt", "d.txt", false},
	}
	for _, tc := range tests {
		m, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatalf("%q: %v", tc.glob, err)
		}
		if got := m.match(tc.rel, path.Base(tc.rel)); got != tc.want {
			t.Errorf("glob %q on %q = %v, want %v", tc.glob, tc.rel, got, tc.want)
		}
	}
}

func TestGlobMayContain(t *testing.T) {
	tests := []struct {
		glob string
		dir  string
		want bool
	}{
		{"*.go", "any/dir", true},
		{"src/*.go", "src", true},
		{"src/*.go", "src/deep", false},
		{"src/*.go", "lib", false},
		{"src/**/x.go", "src/a/b/c", true},
		{"cmd/*/main.go", "cmd/tool", true},
		{"cmd/*/main.go", "cmd/tool/sub", false},
		{"{cmd,pkg}/**", "pkg", true},
		{"{cmd,pkg}/**", "internal", false},
	}
	for _, tc := range tests {
		m, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.mayContain(tc.dir); got != tc.want {
			t.Errorf("glob %q may contain %q = %v, want %v", tc.glob, tc.dir, got, tc.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for _, g := range []string{"[a-", "*.{go", "{}", strings.Repeat("{a,b}", 7)} {
		if _, err := compileGlob(g); err == nil {
			t.Errorf("glob %q accepted", g)
		}
	}
	if m, err := compileGlob(""); m != nil || err != nil {
		t.Errorf("empty glob: %v %v", m, err)
	}
}

func TestBoundedSelection(t *testing.T) {
	s := newBoundedSelection(3, func(a, b int) bool { return a < b })
	for _, x := range []int{9, 4, 7, 1, 8, 3, 3, 10} {
		s.offer(x)
	}
	got := s.sorted()
	if len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 3 {
		t.Fatalf("kept %v", got)
	}
	if s.wouldKeep(4) || !s.wouldKeep(2) {
		t.Fatal("wouldKeep disagrees with the kept set")
	}
	if z := newBoundedSelection(0, func(a, b int) bool { return a < b }); z.wouldKeep(1) {
		t.Fatal("a zero-size selection keeps items")
	}
}
