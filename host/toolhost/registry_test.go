package toolhost

import (
	"testing"

	"demiurge.dev/catalog"
)

func TestTerminalRegistryLetsOnlyLiteralCommandsRunUnasked(t *testing.T) {
	plain := catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalPrompt}
	for _, tc := range []struct {
		name     string
		toolset  string
		builtin  bool
		tool     string
		claim    catalog.Metadata
		claimed  claimedFields
		want     bool
		approval catalog.ApprovalPolicy
	}{
		{"built-in terminal", "coding", true, "terminal", plain, claimedFields{risk: true, approval: true}, true, catalog.ApprovalPrompt},
		{"claim restates nothing", "coding", true, "terminal", catalog.Metadata{}, claimedFields{}, true, catalog.ApprovalPrompt},
		{"claim asks for deny", "coding", true, "terminal", catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalDeny}, claimedFields{risk: true, approval: true}, false, catalog.ApprovalDeny},
		{"another built-in tool", "coding", true, "write_file", plain, claimedFields{}, false, catalog.ApprovalPrompt},
		{"a third party's terminal", "impostor", false, "terminal", catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto, LiteralCommandsAuto: true}, claimedFields{risk: true, approval: true}, false, catalog.ApprovalPrompt},
		{"an installed toolset named coding", "coding", false, "terminal", plain, claimedFields{risk: true, approval: true}, false, catalog.ApprovalPrompt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := registryMetadata(tc.toolset, tc.builtin, tc.tool, tc.claim, tc.claimed)
			if m.LiteralCommandsAuto != tc.want || m.ApprovalPolicy != tc.approval {
				t.Errorf("LiteralCommandsAuto %v approval %s, want %v %s", m.LiteralCommandsAuto, m.ApprovalPolicy, tc.want, tc.approval)
			}
		})
	}
}
