package approval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestAlwaysAskIsTheOperatorsEveryTime: a tool in AlwaysAsk (the editor's
// terminal) is approved only by the provider's answer, once: not by an
// auto policy, a core's rule, the operator's own --approve rule, an
// earlier "allow for the session" or a lease; the card shows its sandbox
// line and offers no session allow; a deny rule and a block still refuse
// without asking.
func TestAlwaysAskIsTheOperatorsEveryTime(t *testing.T) {
	const line = "NONE: runs in the editor"
	req := Request{
		Tool: "editor_terminal", CallID: "c1", Risk: catalog.RiskHigh, Policy: catalog.ApprovalAuto,
		Fingerprint: "fp", Authority: authority(t, "s1", "r1", "terminal.exec"), SessionAllowable: true, SessionDeniable: true,
		Sandbox: "workspace-write",
	}
	core := mustRules(t, "allow:editor_terminal")
	core[0].Origin = "agent.yaml"
	flag := mustRules(t, "allow:editor_terminal")
	flag[0].Origin = OriginCommandLine
	sessions := NewSessionAllows(DefaultSessionTTL)
	p := &scripted{answers: []Answer{AllowSession, AllowOnce, Deny}}
	r := &Resolver{Provider: p, Rules: append(slices.Clone(core), flag...), Sessions: sessions, AlwaysAsk: map[string]string{"editor_terminal": line}}
	first, _ := r.Resolve(context.Background(), req)
	if !first.Allowed || first.Via != ViaPrompt || first.Scope != ScopeOnce || p.asked != 1 {
		t.Fatalf("first call: %+v after %d questions", first, p.asked)
	}
	if p.last.Sandbox != line || p.last.SessionAllowable || !p.last.OperatorOnly || !strings.Contains(strings.Join(p.last.Reasons, " "), "outside Demiurge's sandbox") {
		t.Errorf("the question: sandbox %q, session allowable %v, operator only %v, reasons %q", p.last.Sandbox, p.last.SessionAllowable, p.last.OperatorOnly, p.last.Reasons)
	}
	if second, _ := r.Resolve(context.Background(), req); !second.Allowed || second.Via != ViaPrompt || p.asked != 2 {
		t.Errorf("second call (an allow for the session was answered before): %+v after %d questions", second, p.asked)
	}
	if third, _ := r.Resolve(context.Background(), req); third.Allowed || p.asked != 3 {
		t.Errorf("third call, denied: %+v after %d questions", third, p.asked)
	}
	// Without AlwaysAsk the same rules approve it unasked: the test's
	// rules would otherwise count.
	if out, _ := (&Resolver{Provider: &scripted{}, Rules: flag}).Resolve(context.Background(), req); !out.Allowed {
		t.Fatalf("control: %+v", out)
	}
	deny := mustRules(t, "deny:editor_terminal")
	p = &scripted{answers: []Answer{AllowOnce}}
	if out, _ := (&Resolver{Provider: p, Rules: deny, AlwaysAsk: r.AlwaysAsk}).Resolve(context.Background(), req); out.Allowed || p.asked != 0 {
		t.Errorf("a deny rule: %+v after %d questions", out, p.asked)
	}
	blocked := req
	blocked.Block = true
	if out, _ := (&Resolver{Provider: p, AlwaysAsk: r.AlwaysAsk}).Resolve(context.Background(), blocked); out.Allowed || out.Via != ViaBlock || p.asked != 0 {
		t.Errorf("a block: %+v after %d questions", out, p.asked)
	}
	lease := &Resolver{Provider: p, AlwaysAsk: r.AlwaysAsk, Unattended: func(Request) (bool, string) { return true, "" }}
	if out, _ := lease.Resolve(context.Background(), req); out.Allowed || p.asked != 0 {
		t.Errorf("a lease: %+v after %d questions", out, p.asked)
	}
}
