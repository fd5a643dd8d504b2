package dispatch

import (
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// The mode of an authored call: what its capabilities need, never looser
// than the session's; off only from the operator; no sandbox configured
// is an error (seed 004 fails closed).
func TestAuthoredSandboxMode(t *testing.T) {
	tests := []struct {
		session sandbox.Mode
		caps    []string
		want    sandbox.Mode
		err     string
		// explicit: the operator or core chose the session mode; granted:
		// the session holds network.fetch.
		explicit, granted bool
	}{
		{sandbox.WorkspaceWrite, nil, sandbox.ReadOnly, "", true, false},
		{sandbox.WorkspaceWrite, []string{"fs.read"}, sandbox.ReadOnly, "", true, false},
		{sandbox.WorkspaceWrite, []string{"fs.write"}, sandbox.WorkspaceWrite, "", true, false},
		{sandbox.Network, []string{"network.fetch"}, sandbox.Network, "", true, false},
		// The session's mode caps what a tool declares.
		{sandbox.WorkspaceWrite, []string{"network.fetch"}, sandbox.WorkspaceWrite, "", true, false},
		{sandbox.ReadOnly, []string{"fs.write", "network.fetch"}, sandbox.ReadOnly, "", true, false},
		{sandbox.Off, []string{"fs.write"}, sandbox.Off, "", true, false},
		{"", []string{"fs.write"}, "", "no OS sandbox is configured", false, false},
		// The default workspace-write is nobody's choice: network.fetch,
		// declared and granted, gets the network; an explicit mode caps it.
		{sandbox.WorkspaceWrite, []string{"network.fetch"}, sandbox.Network, "", false, true},
		{sandbox.WorkspaceWrite, []string{"network.fetch"}, sandbox.WorkspaceWrite, "", true, true},
		{sandbox.WorkspaceWrite, []string{"fs.write"}, sandbox.WorkspaceWrite, "", false, true},
		{sandbox.ReadOnly, []string{"network.fetch"}, sandbox.ReadOnly, "", true, true},
		{sandbox.WorkspaceWrite, []string{"network.fetch"}, sandbox.WorkspaceWrite, "", false, false},
	}
	for _, tt := range tests {
		turn := &Turn{Sandbox: sandboxing.Config{Mode: tt.session, Explicit: tt.explicit}}
		if tt.granted {
			caps, err := policy.NewCapabilitySet([]string{"network.fetch"})
			if err != nil {
				t.Fatal(err)
			}
			turn.Authority.Capabilities = caps
		}
		p := &prepared{entry: &catalog.Entry{Spec: catalog.ToolSpec{Provenance: catalog.Provenance{Kind: catalog.SourceAuthored}},
			Effective: catalog.Metadata{Capabilities: tt.caps}}}
		got, err := turn.authoredSandboxMode(p)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("session %q caps %v: mode %q err %v, want %q %q", tt.session, tt.caps, got, err, tt.want, tt.err)
		}
	}
}

// A tool that is not authored gets no worker policy from this path.
func TestNonAuthoredCallsGetNoWorkerPolicy(t *testing.T) {
	for _, kind := range []catalog.SourceKind{catalog.SourceBuiltin, catalog.SourceInstalled, catalog.SourceMCP} {
		turn := &Turn{Sandbox: sandboxing.Config{Mode: sandbox.WorkspaceWrite}}
		p := &prepared{entry: &catalog.Entry{Spec: catalog.ToolSpec{Provenance: catalog.Provenance{Kind: kind}}}}
		var inv Invocation
		if err := turn.applyAuthoredSandbox(p, &inv); err != nil || inv.SandboxPolicy != "" {
			t.Errorf("%s: policy %q err %v", kind, inv.SandboxPolicy, err)
		}
	}
}
