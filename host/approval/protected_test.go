package approval

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/policy/shellguard"
)

// A write to the core or to git's program-running files is approved only
// by the operator's answer or by their rule naming the exact path: no
// broad rule, no rule in the core, no session allow; a command that
// redirects into one only by the answer.
func TestProtectedWritesNeedTheOperator(t *testing.T) {
	path := pathFact("agent/tools/evil/tool.yaml", true)
	path.Real, path.RealRel, path.RealInside, path.Protected = path.Resolved, path.Rel, true, true
	write := Request{Tool: "write_file", Policy: catalog.ApprovalPrompt, Risk: catalog.RiskHigh, Fingerprint: "fp",
		Authority: authority(t, "s1", "r1"), SessionAllowable: true, Subjects: []policy.SubjectFact{path}}
	cmd := policy.SubjectFact{Kind: "command", Arg: "command", Value: "echo x > .git/config",
		Command: &policy.CommandFact{Guard: shellguard.Verdict{Decision: shellguard.Prompt}, ProtectedWrites: []string{".git/config"}}}
	redirect := Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Risk: catalog.RiskHigh, Fingerprint: "fp2",
		Authority: authority(t, "s1", "r1"), SessionAllowable: true, Subjects: []policy.SubjectFact{cmd}}

	rules := func(origin string, specs ...string) []Rule {
		rs := mustRules(t, specs...)
		for i := range rs {
			rs[i].Origin = origin
		}
		return rs
	}
	for _, tc := range []struct {
		name    string
		req     Request
		rules   []Rule
		allowed bool
	}{
		{"broad operator rule", write, rules(OriginCommandLine, "allow:write_file"), false},
		{"operator pattern", write, rules(OriginCommandLine, "allow:write_file:agent/tools/**"), false},
		{"operator wildcard segment", write, rules(OriginCommandLine, "allow:write_file:agent/tools/evil/*.yaml"), false},
		{"core rule naming the exact path", write, rules("agent.yaml", "allow:write_file:agent/tools/evil/tool.yaml"), false},
		{"operator exact path", write, rules(OriginCommandLine, "allow:write_file:agent/tools/evil/tool.yaml"), true},
		{"operator exact other path", write, rules(OriginCommandLine, "allow:write_file:agent/tools/evil/module.py"), false},
		{"auto policy", func() Request { r := write; r.Policy = catalog.ApprovalAuto; return r }(), nil, false},
		{"command, operator rule", redirect, rules(OriginCommandLine, "allow:terminal"), false},
	} {
		p := &scripted{}
		out, _ := (&Resolver{Provider: p, Rules: tc.rules, Sessions: NewSessionAllows(DefaultSessionTTL)}).Resolve(context.Background(), tc.req)
		if out.Allowed != tc.allowed {
			t.Errorf("%s: %+v, want allowed=%v", tc.name, out, tc.allowed)
		}
		if !tc.allowed && p.asked != 1 {
			t.Errorf("%s: the operator was asked %d times, want once", tc.name, p.asked)
		}
		if p.asked == 1 && p.last.SessionAllowable {
			t.Errorf("%s: a session allow was offered for a protected write", tc.name)
		}
	}

	// "Allow for the session" counts as once: the next call asks again.
	sessions := NewSessionAllows(DefaultSessionTTL)
	p := &scripted{answers: []Answer{AllowSession, Deny}}
	res := &Resolver{Provider: p, Sessions: sessions}
	if out, _ := res.Resolve(context.Background(), write); !out.Allowed || out.Scope != ScopeOnce {
		t.Errorf("first answer: %+v", out)
	}
	if out, _ := res.Resolve(context.Background(), write); out.Allowed || p.asked != 2 {
		t.Errorf("second call: %+v after %d questions; a session allow covered a protected write", out, p.asked)
	}

	// With no one to answer, the refusal names the exact rule to pass.
	out, _ := (&Resolver{Rules: rules(OriginCommandLine, "allow:write_file")}).Resolve(context.Background(), write)
	if out.Allowed || !strings.Contains(out.Reason, "--approve allow:write_file:agent/tools/evil/tool.yaml") {
		t.Errorf("deny-all refusal: %+v", out)
	}

	// The card says what the write does.
	var card bytes.Buffer
	if _, err := (&Terminal{In: strings.NewReader("d\n"), Out: &card}).Ask(context.Background(), write); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(card.String(), "changes what the agent may do") {
		t.Errorf("card does not say the write changes what the agent may do:\n%s", card.String())
	}
	card.Reset()
	if _, err := (&Terminal{In: strings.NewReader("d\n"), Out: &card}).Ask(context.Background(), redirect); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(card.String(), ".git/config (PROTECTED") {
		t.Errorf("card does not name the protected redirect target:\n%s", card.String())
	}
}
