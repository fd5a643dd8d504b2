package approval

import (
	"context"
	"slices"
	"testing"

	"demiurge.dev/catalog"
)

// TestOperatorOnlyNeedsAnExplicitApproval: a request marked OperatorOnly
// (an MCP server's start) is not approved by an auto policy or a core's
// standing allow rule; the operator's rule, a session allow or the
// provider's answer approve it, and a deny rule still refuses it.
func TestOperatorOnlyNeedsAnExplicitApproval(t *testing.T) {
	req := Request{
		Tool: "mcp_connect__docs", CallID: "connect:docs", Risk: catalog.RiskHigh, Policy: catalog.ApprovalPrompt,
		Fingerprint: "fp", Authority: authority(t, "s1", "r1", "mcp.connect:docs"), SessionAllowable: true, OperatorOnly: true,
	}
	auto := req
	auto.Policy = catalog.ApprovalAuto
	core := mustRules(t, "allow:mcp_connect__docs")
	core[0].Origin = "agent.yaml"
	for name, r := range map[string]Request{"core rule": req, "core rule and auto policy": auto} {
		p := &scripted{}
		if out, _ := (&Resolver{Provider: p, Rules: core}).Resolve(context.Background(), r); out.Allowed || p.asked != 1 {
			t.Errorf("%s approved the start of a server: %+v after %d questions", name, out, p.asked)
		}
	}
	flag := mustRules(t, "allow:mcp_connect__docs")
	flag[0].Origin = OriginCommandLine
	p := &scripted{}
	// The operator's rule approves, also behind a core's rule for the same
	// tool (a core's rules come first in the resolver's list).
	if out, _ := (&Resolver{Provider: p, Rules: append(slices.Clone(core), flag...)}).Resolve(context.Background(), req); !out.Allowed || out.Via != ViaRule || p.asked != 0 {
		t.Errorf("the operator's --approve rule: %+v after %d questions", out, p.asked)
	}
	sessions := NewSessionAllows(DefaultSessionTTL)
	p = &scripted{answers: []Answer{AllowSession}}
	res := &Resolver{Provider: p, Rules: core, Sessions: sessions}
	if out, _ := res.Resolve(context.Background(), req); !out.Allowed || out.Via != ViaPrompt {
		t.Errorf("the provider's answer: %+v", out)
	}
	if out, _ := res.Resolve(context.Background(), req); !out.Allowed || out.Via != ViaSession || p.asked != 1 {
		t.Errorf("the session allow: %+v after %d questions", out, p.asked)
	}
	deny := mustRules(t, "deny:mcp_connect__docs")
	deny[0].Origin = "agent.yaml"
	if out, _ := (&Resolver{Provider: &scripted{answers: []Answer{AllowOnce}}, Rules: append(deny, flag...)}).Resolve(context.Background(), req); out.Allowed {
		t.Errorf("a deny rule was overridden: %+v", out)
	}
}
