package core

import (
	"strings"
	"testing"
)

// The `sandbox:` key of a stdio manifest: the three confined modes; off,
// an unknown mode, a non-string and a url server are refused by line.
func TestMCPSandboxKey(t *testing.T) {
	tests := []struct {
		src, want, err string
	}{
		{"command: srv\n", "", ""},
		{"command: srv\nsandbox: read-only\n", "read-only", ""},
		{"command: srv\nsandbox: workspace-write\n", "workspace-write", ""},
		{"command: srv\nsandbox: network\n", "network", ""},
		{"command: srv\nsandbox: off\n", "", "off is the operator's choice"},
		{"command: srv\nsandbox: lenient\n", "", `sandbox mode "lenient" is not one of`},
		{"command: srv\nsandbox: [read-only]\n", "", "sandbox"},
		{"url: https://mcp.example/mcp\nsandbox: read-only\n", "", "a url server runs elsewhere"},
	}
	for _, tt := range tests {
		s, err := ParseMCPServer([]byte(tt.src), "/core/agent/mcp/srv.yaml")
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.src, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one saying %q", tt.src, err, tt.err)
		case tt.err == "" && s.Sandbox != tt.want:
			t.Errorf("%q: sandbox = %q, want %q", tt.src, s.Sandbox, tt.want)
		}
	}
}
