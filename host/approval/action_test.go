package approval

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestRulesAreIsolatedPerAction: for a tool whose calls carry an action
// key (evolve_core), an allow names one action of one run, a bare allow
// names none, and a bare deny or prompt covers them all; a session allow
// of one action's fingerprint never covers another's.
func TestRulesAreIsolatedPerAction(t *testing.T) {
	req := func(action string) Request {
		return Request{Tool: "evolve_core", CallID: "c", Risk: catalog.RiskHigh, Policy: catalog.ApprovalPrompt,
			Fingerprint: "fp+" + action, Authority: authority(t, "s1", "r1", "tool.call:evolve_core"), SessionAllowable: true,
			OperatorOnly: true, Action: action}
	}
	operator := func(specs ...string) []Rule {
		rules := mustRules(t, specs...)
		for i := range rules {
			rules[i].Origin = OriginCommandLine
		}
		return rules
	}
	for _, tc := range []struct {
		rule, action string
		allowed      bool
	}{
		{"allow:evolve_core:promote/run_a", "promote/run_a", true},
		{"allow:evolve_core:promote/*", "promote/run_b", true},
		{"allow:evolve_core:promote/run_a", "promote/run_b", false},
		{"allow:evolve_core:promote/run_a", "discard/run_a", false},
		{"allow:evolve_core:promote/run_a", "review/run_a", false},
		{"allow:evolve_core:promote/**", "start", false},
		{"allow:evolve_core:start", "start", true},
		{"allow:evolve_core:start", "promote/run_a", false},
		{"allow:evolve_core", "promote/run_a", false},
		{"allow:evolve_core", "start", false},
		{"allow:rollback_core", "promote/run_a", false},
	} {
		p := &scripted{}
		out, _ := (&Resolver{Provider: p, Rules: operator(tc.rule)}).Resolve(context.Background(), req(tc.action))
		if out.Allowed != tc.allowed {
			t.Errorf("rule %s, action %s: allowed=%v (%s), want %v", tc.rule, tc.action, out.Allowed, out.Reason, tc.allowed)
		}
	}
	for _, rule := range []string{"deny:evolve_core", "deny:evolve_core:discard/*"} {
		out, _ := (&Resolver{Provider: &scripted{answers: []Answer{AllowOnce}}, Rules: operator(rule, "allow:evolve_core:discard/run_a")}).Resolve(context.Background(), req("discard/run_a"))
		if out.Allowed {
			t.Errorf("%s did not refuse discard/run_a: %+v", rule, out)
		}
	}
	// The hint names the action the operator would approve.
	out, _ := (&Resolver{}).Resolve(context.Background(), req("promote/run_a"))
	if want := "--approve allow:evolve_core:promote/run_a"; out.Allowed || !strings.Contains(out.Reason, want) {
		t.Errorf("reason %q does not say %q", out.Reason, want)
	}
	// A session allow of one action does not cover another.
	sessions := NewSessionAllows(DefaultSessionTTL)
	p := &scripted{answers: []Answer{AllowSession, Deny}}
	res := &Resolver{Provider: p, Sessions: sessions}
	if out, _ := res.Resolve(context.Background(), req("review/run_a")); !out.Allowed {
		t.Fatalf("the answer: %+v", out)
	}
	if out, _ := res.Resolve(context.Background(), req("promote/run_a")); out.Allowed || p.asked != 2 {
		t.Errorf("the review's session allow covered the promote: %+v after %d questions", out, p.asked)
	}
}
