package policy

import "strings"

// Conflicts reports whether two calls of one batch must not run at the same
// time. Two read-only calls never conflict. Otherwise they conflict when
// they share a resource key, or when one fs key is the other's path prefix
// (writing a directory's file while listing the directory), or when one is
// a command (exec key): a command may read or write any file, so it
// overlaps every fs and exec key. A call that names no resource at all has
// an unknown footprint: beside a call that is not read-only it conflicts,
// whether it reads or writes (a search of the workspace after a write must
// see the write).
func Conflicts(a, b []string, aReadOnly, bReadOnly bool) bool {
	if aReadOnly && bReadOnly {
		return false
	}
	if len(a) == 0 || len(b) == 0 {
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
	if isFileKey(a) && isFileKey(b) && (strings.HasPrefix(a, ResourceKeyExec) || strings.HasPrefix(b, ResourceKeyExec)) {
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

// isFileKey reports whether a key stands for files: a path, or a command
// that may touch any file.
func isFileKey(k string) bool {
	return strings.HasPrefix(k, ResourceKeyFS) || strings.HasPrefix(k, ResourceKeyExec)
}
