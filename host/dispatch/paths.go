package dispatch

import (
	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// resolvedPaths are the call's path subjects as the host resolved them
// (absolute and cleaned, relative arguments taken from the workspace root),
// by argument name: the paths the approval and the audit name, which the
// plugin opens instead of the argument as given.
func resolvedPaths(a *policy.Assessment) map[string]string {
	var paths map[string]string
	for _, s := range a.Subjects {
		if s.Kind != string(catalog.SubjectPath) || s.Resolved == "" {
			continue
		}
		if paths == nil {
			paths = map[string]string{}
		}
		paths[s.Arg] = s.Resolved
	}
	return paths
}
