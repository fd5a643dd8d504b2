package policy

import "strings"

// Conflicts reports whether two calls of one batch must not run at the same
// time. Two read-only calls never conflict. Otherwise they conflict when
// they share a resource key, or when one fs key is the other's path prefix
// (writing a directory's file while listing the directory). A call that is
// not read-only and names no resource at all has an unknown footprint and
// conflicts with everything.
func Conflicts(a, b []string, aReadOnly, bReadOnly bool) bool {
	if aReadOnly && bReadOnly {
		return false
	}
	if (!aReadOnly && len(a) == 0) || (!bReadOnly && len(b) == 0) {
		return true
	}
	for _, ka := range a {
		for _, kb := range b {
			if keysOverlap(ka, kb) {
				return true
			}
		}
	}
	return false
}

func keysOverlap(a, b string) bool {
	if a == b {
		return true
	}
	pa, okA := strings.CutPrefix(a, ResourceKeyFS)
	pb, okB := strings.CutPrefix(b, ResourceKeyFS)
	if !okA || !okB {
		return false
	}
	return pathUnder(pa, pb) || pathUnder(pb, pa)
}

// pathUnder reports whether p lies under dir, by whole path elements.
func pathUnder(dir, p string) bool {
	_, inside := within(dir, p)
	return inside
}
