package approval

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// commandRequest assesses a terminal call for real, in a fresh workspace,
// and builds the request dispatch would build from it. meta is the tool's
// effective metadata.
func commandRequest(t *testing.T, meta catalog.Metadata, args map[string]any) Request {
	t.Helper()
	ws, err := policy.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return commandRequestIn(t, ws, meta, args)
}

func commandRequestIn(t *testing.T, ws policy.Workspace, meta catalog.Metadata, args map[string]any) Request {
	t.Helper()
	spec := catalog.ToolSpec{
		Name: "terminal", Effect: catalog.EffectExec, Metadata: meta,
		Subjects: []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "command", CwdArg: "cwd", EnvArg: "env", BackgroundArg: "background", TimeoutArg: "timeout"}},
	}
	a, err := policy.Assess(spec, meta, args, ws)
	if err != nil {
		t.Fatal(err)
	}
	return Request{
		Tool: "terminal", CallID: "c1", Risk: a.Risk, Policy: a.Approval, Block: a.Block, Reasons: a.Reasons,
		Fingerprint: a.Fingerprint, Authority: authority(t, "s1", "r1", "terminal.exec"), SessionAllowable: true,
		Subjects: a.Subjects,
	}
}

var autoLow = catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto}

func TestGuardPromptIsNotLoweredByAutoOrAllowRules(t *testing.T) {
	req := commandRequest(t, autoLow, map[string]any{"command": "make test"})
	if req.Policy != catalog.ApprovalPrompt {
		t.Fatalf("the assessment of make test has policy %v, want prompt", req.Policy)
	}
	// A global auto fallback: the request arrives as auto all the same.
	fallback := req
	fallback.Policy = catalog.ApprovalAuto
	for name, r := range map[string]Request{"prompt policy": req, "auto fallback": fallback} {
		p := &scripted{answers: []Answer{Deny}}
		res := Resolver{Provider: p, Rules: mustRules(t, "allow:terminal")}
		out, err := res.Resolve(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if out.Allowed || out.Via != ViaDeny || p.asked != 1 {
			t.Errorf("%s: outcome %+v after %d questions; want the provider asked and its deny kept", name, out, p.asked)
		}
	}
	// A rule from a core is a standing rule, not an explicit approval.
	core := mustRules(t, "allow:terminal")
	core[0].Origin = "agent.yaml"
	p := &scripted{}
	if out, _ := (&Resolver{Provider: p, Rules: core}).Resolve(context.Background(), fallback); out.Allowed || p.asked != 1 {
		t.Errorf("a core's allow rule approved a guarded command: %+v", out)
	}
	// An explicit answer runs it: the provider's, or the operator's rule
	// for this run.
	p = &scripted{answers: []Answer{AllowOnce}}
	if out, _ := (&Resolver{Provider: p, Rules: core}).Resolve(context.Background(), req); !out.Allowed || out.Via != ViaPrompt {
		t.Errorf("an explicit allow gave %+v", out)
	}
	flag := mustRules(t, "allow:terminal")
	flag[0].Origin = OriginCommandLine
	p = &scripted{}
	if out, _ := (&Resolver{Provider: p, Rules: flag}).Resolve(context.Background(), fallback); !out.Allowed || out.Via != ViaRule || p.asked != 0 {
		t.Errorf("the operator's --approve rule: %+v after %d questions", out, p.asked)
	}
}

func TestGuardAllowedCommandFollowsRulesAndPolicy(t *testing.T) {
	req := commandRequest(t, autoLow, map[string]any{"command": "git log --oneline -5"})
	p := &scripted{}
	res := Resolver{Provider: p}
	if out, _ := res.Resolve(context.Background(), req); !out.Allowed || out.Via != ViaAuto {
		t.Errorf("a literal read-only command under auto metadata: %+v", out)
	}
	prompting := commandRequest(t, catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalPrompt}, map[string]any{"command": "git status"})
	res.Rules = mustRules(t, "allow:terminal")
	if out, _ := res.Resolve(context.Background(), prompting); !out.Allowed || out.Via != ViaRule {
		t.Errorf("an allow rule on a command the guard allows: %+v", out)
	}
	if p.asked != 0 {
		t.Errorf("the provider was asked %d times", p.asked)
	}
}

func TestGuardBlockIsNeverAsked(t *testing.T) {
	req := commandRequest(t, autoLow, map[string]any{"command": "sudo rm -rf --no-preserve-root /"})
	if !req.Block {
		t.Fatalf("the assessment did not block: %q", req.Reasons)
	}
	// Even if a caller dropped the block flag, the subject's verdict blocks.
	dropped := req
	dropped.Block = false
	dropped.Policy = catalog.ApprovalAuto
	for name, r := range map[string]Request{"assessed": req, "flag dropped": dropped} {
		p := &scripted{answers: []Answer{AllowOnce}}
		rules := mustRules(t, "allow:terminal")
		rules[0].Origin = OriginCommandLine
		res := Resolver{Provider: p, Rules: rules}
		out, _ := res.Resolve(context.Background(), r)
		if out.Allowed || out.Via != ViaBlock || p.asked != 0 {
			t.Errorf("%s: %+v after %d questions; want a block without asking", name, out, p.asked)
		}
		if !strings.Contains(out.Reason, "rm -r of /") {
			t.Errorf("%s: reason %q does not say what was blocked", name, out.Reason)
		}
	}
}

func TestGuardSessionAllowCoversOneShape(t *testing.T) {
	clk := newClock()
	p := &scripted{answers: []Answer{AllowSession}}
	res := Resolver{Provider: p, Sessions: NewSessionAllows(0), Now: clk.Now}
	ws, err := policy.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"command": "go test ./...", "timeout": 60.0, "env": map[string]any{"GOFLAGS": "-count=1"}}
	first := commandRequestIn(t, ws, autoLow, args)
	if out, _ := res.Resolve(context.Background(), first); !out.Allowed || out.Scope != ScopeSession {
		t.Fatalf("first call: %+v", out)
	}
	again := commandRequestIn(t, ws, autoLow, args)
	again.CallID = "c2"
	if out, _ := res.Resolve(context.Background(), again); !out.Allowed || out.Via != ViaSession || p.asked != 1 {
		t.Errorf("the same shape again: %+v after %d questions", out, p.asked)
	}
	for name, change := range map[string]func(map[string]any){
		"timeout":    func(m map[string]any) { m["timeout"] = 61.0 },
		"background": func(m map[string]any) { m["background"] = true },
		"env value":  func(m map[string]any) { m["env"] = map[string]any{"GOFLAGS": "-count=2"} },
	} {
		other := map[string]any{}
		for k, v := range args {
			other[k] = v
		}
		change(other)
		r := commandRequestIn(t, ws, autoLow, other)
		asked := p.asked
		if out, _ := res.Resolve(context.Background(), r); out.Via == ViaSession || p.asked != asked+1 {
			t.Errorf("%s changed, yet the session allow covered it: %+v", name, out)
		}
	}
}

func TestGuardDenyAllSaysAnExplicitApprovalIsNeeded(t *testing.T) {
	req := commandRequest(t, autoLow, map[string]any{"command": "npm test"})
	out, _ := (&Resolver{Rules: mustRules(t, "allow:terminal")}).Resolve(context.Background(), req)
	if out.Allowed || !strings.Contains(out.Reason, "explicit approval") {
		t.Errorf("outcome %+v", out)
	}
}

func TestCardShowsCommandShapeWithoutEnvValues(t *testing.T) {
	req := commandRequest(t, autoLow, map[string]any{"command": "make", "background": true, "timeout": 30.0,
		"env": map[string]any{"API_TOKEN": "v4lue-never-shown", "LANG": "C"}})
	var b strings.Builder
	if err := writeCard(&b, req); err != nil {
		t.Fatal(err)
	}
	card := b.String()
	for _, want := range []string{"command  make", "cwd      " + req.Subjects[0].Resolved, "env      API_TOKEN, LANG (values not shown)", "runs     background, timeout 30s"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, "v4lue-never-shown") {
		t.Errorf("card shows an env value:\n%s", card)
	}
}
