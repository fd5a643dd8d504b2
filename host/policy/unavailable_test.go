package policy

import (
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestUnavailableReasonNamesTheGrantsFile: an authored tool held back for
// a capability a grant by path may give is pointed to the operator's
// grants file as well as agent.yaml; a built-in or installed tool, or a
// capability no path grant gives, only to agent.yaml.
func TestUnavailableReasonNamesTheGrantsFile(t *testing.T) {
	authored := catalog.Provenance{Kind: catalog.SourceAuthored}
	for _, tc := range []struct {
		name     string
		u        catalog.Unavailable
		file     string
		mentions string
	}{
		{"authored", catalog.Unavailable{Tool: "deploy", Provenance: authored, Missing: "tool.call:deploy"}, "/etc/x/grants.yaml", "/etc/x/grants.yaml"},
		{"no config dir", catalog.Unavailable{Tool: "deploy", Provenance: authored, Missing: "tool.call:deploy"}, "", "$XDG_CONFIG_HOME/demiurge/grants.yaml"},
		{"not by path", catalog.Unavailable{Tool: "d", Provenance: authored, Missing: "tool.call:delegate_task"}, "/etc/x/grants.yaml", ""},
		{"built in", catalog.Unavailable{Tool: "web_extract", Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin}, Missing: "tool.call:web_extract"}, "/etc/x/grants.yaml", ""},
	} {
		got := UnavailableReason(tc.u, tc.file)
		if !strings.Contains(got, "needs capability "+tc.u.Missing) || !strings.Contains(got, "agent.yaml") {
			t.Errorf("%s: %q", tc.name, got)
		}
		if tc.mentions != "" && !strings.Contains(got, "grants it to the tool's path in "+tc.mentions) {
			t.Errorf("%s: %q does not name %s", tc.name, got, tc.mentions)
		}
		if tc.mentions == "" && strings.Contains(got, "grants") {
			t.Errorf("%s: %q names the grants file", tc.name, got)
		}
	}
}
