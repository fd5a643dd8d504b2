package mcp

import (
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
)

// TestHostApprovalNamesAreReservedServerIDs pins that no server can be
// named like the host's own MCP approvals: a server mcp_connect would
// offer tools named mcp_connect__TOOL, so allow:mcp_connect__docs (start
// docs) would also approve calling its tool "docs".
func TestHostApprovalNamesAreReservedServerIDs(t *testing.T) {
	for _, name := range []string{ConnectTool("docs"), ElicitTool("docs")} {
		reserved := false
		for _, p := range catalog.ReservedNamePrefixes {
			reserved = reserved || strings.HasPrefix(name, p)
		}
		if !reserved {
			t.Errorf("%s begins with none of catalog.ReservedNamePrefixes %q", name, catalog.ReservedNamePrefixes)
		}
		server, _, ok := strings.Cut(name, Separator)
		if !ok {
			t.Fatalf("%s has no separator", name)
		}
		for _, spelling := range []string{server, strings.ToUpper(server), "Mcp_" + server[4:]} {
			if err := core.ValidMCPServerID(spelling); err == nil || !strings.Contains(err.Error(), "reserved") {
				t.Errorf("ValidMCPServerID(%q) = %v, want reserved", spelling, err)
			}
		}
		if tool, err := ToolName(server, "docs"); err == nil && tool == name && core.ValidMCPServerID(server) == nil {
			t.Errorf("server %s's tool docs is named %s, the host's approval", server, tool)
		}
	}
	if err := core.ValidMCPServerID("mcp_connector"); err != nil {
		t.Errorf("ValidMCPServerID(mcp_connector) = %v, want nil: only the approvals' own prefixes are reserved", err)
	}
}
