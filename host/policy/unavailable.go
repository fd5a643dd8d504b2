package policy

import (
	"fmt"

	"demiurge.dev/catalog"
)

// UnavailableReason says why the catalog holds u back and how it can be
// made available: the core's agent.yaml always; for a tool the core
// itself authors, needing a capability a grant by path may give, also the
// operator's grants file (grantsFile, the host's; "" when the user has no
// configuration directory).
func UnavailableReason(u catalog.Unavailable, grantsFile string) string {
	why := fmt.Sprintf("it needs capability %s, which this core does not grant (add it to capabilities: in agent.yaml", u.Missing)
	if u.Provenance.Kind == catalog.SourceAuthored && PathGrantable(u.Missing) == nil {
		if grantsFile == "" {
			grantsFile = "$XDG_CONFIG_HOME/demiurge/" + PathGrantsFileName
		}
		why += ", or the operator grants it to the tool's path in " + grantsFile + ", see docs/host-grants.md"
	}
	return why + ")"
}
