package mcp

import (
	"strings"
	"testing"

	"demiurge.dev/host/core"
)

// TestPreviewArgHidesBareCredentials: positional arguments shaped like
// credentials never reach the connect preview; paths, package names,
// flags, versions and ordinary words do.
func TestPreviewArgHidesBareCredentials(t *testing.T) {
	s := core.MCPServer{ID: "x"}
	p := &plan{server: s, secrets: knownSecrets(s)}
	for _, tc := range []struct {
		arg    string
		hidden bool
	}{
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"sk-live-abcdef1234567890", true},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"xoxb-123456789012-abcdefghijkl", true},
		{"glpat-abcdefghij0123456789", true},
		{"Zx8kq2LmN4pR7tV1wY3bC6dF", true},
		{"c2VjcmV0LXRva2VuLXZhbHVlLTEyMzQ1", true},
		{"-y", false},
		{"@modelcontextprotocol/server-everything", false},
		{"/srv/data/projects/2026", false},
		{"--port=8080", false},
		{"server-filesystem-2025", false},
		{"my-project-name-v2-release-1", false},
		{"2025.11.25", false},
		{"streamableHttp", false},
		{"https://docs.example/mcp", false},
	} {
		got := p.previewArg(3, tc.arg)
		if hidden := !strings.Contains(got, tc.arg); hidden != tc.hidden {
			t.Errorf("previewArg(%q) = %q; hidden %v, want %v", tc.arg, got, hidden, tc.hidden)
		}
	}
}
