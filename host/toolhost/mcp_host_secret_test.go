package toolhost

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/mcp/mcptest"
)

// TestMCPDiagnosticsHideTheHostsCredentials: the MCP pool knows the
// host's own credentials (mcp.Config.HostSecrets): a server's diagnostic
// that carries one (here its command path) shows it in no warning and no
// state. Before, the pool replaced only the server's declared values.
func TestMCPDiagnosticsHideTheHostsCredentials(t *testing.T) {
	// The model's key, read from the variable its api_key_env names.
	t.Setenv("MCPHOSTKEYVAR", rememberedValue)
	bins := mcptest.Servers(t)
	dir := writeCore(t, "toolsets: [coding]\nslots: {mcp: agent/mcp}\ncapabilities: [fs.read, \"mcp.connect:*\", \"mcp.call:*\"]\n"+
		"model: {provider: openai-compatible, name: local, base_url: 'http://127.0.0.1:9/v1', api_key_env: MCPHOSTKEYVAR}\n")
	mcptest.Manifest(t, filepath.Join(dir, "agent", "mcp"), "lost", "command: "+filepath.Join(bins, "no-such-"+rememberedValue)+"\n")
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__lost"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := h.hostCredentials()["MCPHOSTKEYVAR"]; !ok {
		t.Fatalf("the premise: the model's key is not a host credential: %v", h.hostCredentials())
	}
	if _, err := h.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	var diag []string
	for _, s := range h.MCPStates() {
		diag = append(diag, s.Diagnostic)
	}
	all := strings.Join(append(diag, h.Warnings()...), "\n")
	if !strings.Contains(all, "no-such-") || strings.Contains(all, rememberedValue) {
		t.Fatalf("the diagnostic of server lost:\n%s", all)
	}
}
