package policy

import (
	"testing"

	"demiurge.dev/catalog"
)

// The built-in terminal's registry: prompt, except literal commands.
var terminalRegistry = catalog.Metadata{Risk: catalog.RiskHigh, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalPrompt, LiteralCommandsAuto: true}

func TestLiteralCommandsRunUnasked(t *testing.T) {
	ws, _ := realWorkspace(t)
	for _, tc := range []struct {
		name     string
		meta     catalog.Metadata
		args     map[string]any
		risk     catalog.Risk
		approval catalog.ApprovalPolicy
		reason   string
	}{
		{"literal read-only", terminalRegistry, map[string]any{"command": "git log --oneline -5"}, catalog.RiskLow, catalog.ApprovalAuto, ""},
		{"literal in a subdirectory", terminalRegistry, map[string]any{"command": "ls -la", "cwd": "sub", "timeout": 30}, catalog.RiskLow, catalog.ApprovalAuto, ""},
		{"not literal", terminalRegistry, map[string]any{"command": "echo $HOME"}, catalog.RiskHigh, catalog.ApprovalPrompt, "command:"},
		{"test runner", terminalRegistry, map[string]any{"command": "go test ./..."}, catalog.RiskHigh, catalog.ApprovalPrompt, "command:"},
		{"destructive", terminalRegistry, map[string]any{"command": "rm -rf /"}, catalog.RiskHigh, catalog.ApprovalDeny, "blocked command"},
		{"background", terminalRegistry, map[string]any{"command": "ls", "background": true}, catalog.RiskMedium, catalog.ApprovalPrompt, "background"},
		{"env overlay", terminalRegistry, map[string]any{"command": "ls", "env": map[string]any{"A": "1"}}, catalog.RiskMedium, catalog.ApprovalPrompt, "environment"},
		{"cwd outside", terminalRegistry, map[string]any{"command": "ls", "cwd": "escape"}, catalog.RiskHigh, catalog.ApprovalDeny, "outside"},
		{"without the registry flag", catalog.Metadata{Risk: catalog.RiskHigh, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalPrompt}, map[string]any{"command": "ls"}, catalog.RiskHigh, catalog.ApprovalPrompt, ""},
		{"flag with a deny policy", catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalDeny, LiteralCommandsAuto: true}, map[string]any{"command": "ls"}, catalog.RiskHigh, catalog.ApprovalDeny, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Assess(terminalSpec(), tc.meta, tc.args, ws)
			if err != nil {
				t.Fatal(err)
			}
			if a.Risk != tc.risk || a.Approval != tc.approval {
				t.Errorf("%v: risk %s approval %s, want %s %s (reasons %q)", tc.args, a.Risk, a.Approval, tc.risk, tc.approval, a.Reasons)
			}
			if tc.reason != "" && !hasReason(a.Reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", a.Reasons, tc.reason)
			}
		})
	}
}

// A tool flagged for literal commands but declaring no command subject has
// nothing to review: it keeps its registry policy.
func TestLiteralFlagWithoutCommandSubject(t *testing.T) {
	ws, _ := realWorkspace(t)
	spec := catalog.ToolSpec{Name: "odd", Effect: catalog.EffectExec, Metadata: terminalRegistry}
	a, err := Assess(spec, terminalRegistry, map[string]any{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	if a.Approval != catalog.ApprovalPrompt || a.Risk != catalog.RiskHigh {
		t.Errorf("risk %s approval %s, want high prompt", a.Risk, a.Approval)
	}
}
