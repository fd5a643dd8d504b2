package dispatch

import (
	"slices"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// resolvedPaths are the call's path subjects as the host resolved them
// (absolute and cleaned, relative arguments taken from the workspace root),
// one per argument name: the paths the approval and the audit name, which
// the plugin opens instead of the argument as given. An argument named
// twice keeps its last subject's path, as the map they once were did.
func resolvedPaths(a *policy.Assessment) []ResolvedPath {
	var paths []ResolvedPath
	for _, s := range a.Subjects {
		if s.Kind != string(catalog.SubjectPath) || s.Resolved == "" {
			continue
		}
		if i := slices.IndexFunc(paths, func(p ResolvedPath) bool { return p.Arg == s.Arg }); i >= 0 {
			paths[i].Path = s.Resolved
			continue
		}
		paths = append(paths, ResolvedPath{Arg: s.Arg, Path: s.Resolved})
	}
	return paths
}
