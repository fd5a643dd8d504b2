package toolhost

import (
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
)

// pathlessRuleWarnings names each approval rule TOOL:GLOB whose tool is in
// the catalog and has no path subject: a GLOB matches only path subjects,
// so such a rule can never match, and an operator who wrote it to allow
// or deny something would otherwise never learn it does nothing.
func pathlessRuleWarnings(cat *catalog.Catalog, rules []approval.Rule) []string {
	var out []string
	for _, r := range rules {
		if r.Glob == "" {
			continue
		}
		e, ok := cat.Lookup(r.Tool)
		if !ok {
			continue
		}
		paths := false
		for _, s := range e.Spec.Subjects {
			paths = paths || s.Kind == catalog.SubjectPath
		}
		if !paths {
			out = append(out, fmt.Sprintf("approval rule %s (%s) can never match: %s has no path argument for %q to match (a rule without :GLOB speaks of every call of it)",
				r, originOr(r.Origin), r.Tool, r.Glob))
		}
	}
	return out
}

func originOr(origin string) string {
	if origin == "" {
		return "a rule"
	}
	return origin
}
