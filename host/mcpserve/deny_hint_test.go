package mcpserve

import (
	"strings"
	"testing"
)

// TestDenialTellsTheServeCommandLine: a client that cannot answer
// approvals (no elicitation) is denied a write with text that says how the
// operator approves it where an MCP client starts the server (its args),
// not "run in a terminal".
func TestDenialTellsTheServeCommandLine(t *testing.T) {
	s := serve(t, serveOpts{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, s, v, nil)
			res := call(t, c, "write_file", map[string]any{"path": "x.txt", "content": "x"})
			msg := text(res)
			if !res.IsError || !strings.Contains(msg, "--approve allow:write_file on the `demiurge mcp serve` command line") ||
				!strings.Contains(msg, `"args": ["--approve", "allow:write_file", "mcp", "serve"]`) || strings.Contains(msg, "run in a terminal") {
				t.Fatalf("denial text:\n%s", msg)
			}
		})
	}
}
