package packages

import (
	"fmt"
	"slices"

	"demiurge.dev/catalog"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
)

// KeepDeclared keeps of a package plugin's source only the tools its
// manifest declared at install (what the operator saw and the lock
// records): a package may not take the name of a tool it did not ship,
// and the tools it declared but does not serve are said so. A plugin that
// is not the package's own is returned as is.
func KeepDeclared(active *installed.Active, cand plugins.Candidate, src catalog.Source) (catalog.Source, []string) {
	p, ok := active.Package(cand.Name)
	if !ok || !Serves(p, cand) {
		return src, nil
	}
	var kept []catalog.ToolSpec
	var warnings []string
	served := map[string]bool{}
	for _, t := range src.Tools {
		served[t.Name] = true
		if !slices.Contains(p.Tools, t.Name) {
			warnings = append(warnings, fmt.Sprintf("package %s serves %s, which its package.json does not declare; it is left out", p.Name, t.Name))
			continue
		}
		kept = append(kept, t)
	}
	for _, name := range p.Tools {
		if !served[name] {
			warnings = append(warnings, fmt.Sprintf("package %s declares %s but its plugin does not serve it", p.Name, name))
		}
	}
	src.Tools = kept
	return src, warnings
}
