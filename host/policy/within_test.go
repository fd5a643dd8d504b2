package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWithinComparesWholeElements: the root itself, paths below it, and
// paths that only share a prefix of its last element (/ws-other, /wsx).
func TestWithinComparesWholeElements(t *testing.T) {
	// prefixWithin is within as it was written before (root+"/" built).
	prefixWithin := func(root, p string) (string, bool) {
		if p == root {
			return ".", true
		}
		prefix := root
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if !strings.HasPrefix(p, prefix) {
			return "", false
		}
		return filepath.ToSlash(p[len(prefix):]), true
	}
	for _, tc := range []struct {
		root, p, rel string
		inside       bool
	}{
		{"/ws", "/ws", ".", true},
		{"/ws", "/ws/a", "a", true},
		{"/ws", "/ws/a/b.txt", "a/b.txt", true},
		{"/ws", "/ws-other/a", "", false},
		{"/ws", "/wsx", "", false},
		{"/ws", "/w", "", false},
		{"/ws", "/", "", false},
		{"/", "/", ".", true},
		{"/", "/etc/passwd", "etc/passwd", true},
		{"/a/b", "/a/b/c", "c", true},
		{"/a/b", "/a/bc", "", false},
		{"/a/b", "/a", "", false},
	} {
		rel, inside := within(tc.root, tc.p)
		if rel != tc.rel || inside != tc.inside {
			t.Errorf("within(%q, %q) = %q, %v; want %q, %v", tc.root, tc.p, rel, inside, tc.rel, tc.inside)
		}
		if wr, wi := prefixWithin(tc.root, tc.p); wr != rel || wi != inside {
			t.Errorf("within(%q, %q) = %q, %v; the old form gives %q, %v", tc.root, tc.p, rel, inside, wr, wi)
		}
	}
}
