package approval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/catalog"
)

func mustRules(t testing.TB, specs ...string) []Rule {
	t.Helper()
	var out []Rule
	for _, s := range specs {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestResolveOrder(t *testing.T) {
	auth := authority(t, "s1", "rev1", "fs.write")
	for _, tc := range []struct {
		name      string
		mutate    func(*Request)
		rules     []string
		answers   []Answer
		provErr   error
		preGrant  bool // a session allow for the request exists
		allowed   bool
		via       string
		scope     string
		asked     bool
		reasonHas string
	}{
		{
			name: "block beats everything", mutate: func(r *Request) { r.Block = true; r.Policy = catalog.ApprovalAuto; r.Reasons = []string{"rm -rf /"} },
			rules: []string{"allow:write_file"}, preGrant: true, answers: []Answer{AllowOnce},
			via: ViaBlock, reasonHas: "rm -rf /",
		},
		{
			name: "deny policy beats allow rules and session allows", mutate: func(r *Request) { r.Policy = catalog.ApprovalDeny },
			rules: []string{"allow:write_file"}, preGrant: true, answers: []Answer{AllowOnce},
			via: ViaPolicy, reasonHas: "writes",
		},
		{
			name: "a policy outside the lattice is a deny", mutate: func(r *Request) { r.Policy = catalog.ApprovalPolicy(7) },
			answers: []Answer{AllowOnce}, via: ViaPolicy,
		},
		{
			name: "deny rule beats auto", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto },
			rules: []string{"deny:write_file"}, via: ViaRule, reasonHas: "deny:write_file",
		},
		{
			name: "deny rule beats an allow rule listed first", rules: []string{"allow:write_file", "deny:write_file:*.txt"},
			answers: []Answer{AllowOnce}, via: ViaRule, reasonHas: "deny:write_file:*.txt",
		},
		{
			name: "deny rule beats a session allow", rules: []string{"deny:write_file"}, preGrant: true, via: ViaRule,
		},
		{
			name: "deny rule beats a prompt rule", rules: []string{"prompt:write_file", "deny:write_file"}, via: ViaRule,
		},
		{
			name: "prompt rule beats auto", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto },
			rules: []string{"prompt:write_file:*.txt"}, answers: []Answer{AllowOnce},
			allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "prompt rule beats allow rules and session allows", rules: []string{"allow:write_file", "prompt:write_file"},
			preGrant: true, answers: []Answer{Deny}, via: ViaDeny, asked: true,
		},
		{
			name: "prompt rule keeps no session allow", rules: []string{"prompt:write_file"},
			answers: []Answer{AllowSession}, allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "prompt rule whose glob misses leaves auto alone", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto },
			rules: []string{"prompt:write_file:src/**"}, allowed: true, via: ViaAuto, scope: ScopeOnce,
		},
		{
			name: "auto", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto },
			allowed: true, via: ViaAuto, scope: ScopeOnce,
		},
		{
			name: "allow rule", rules: []string{"allow:write_file:*.txt"},
			allowed: true, via: ViaRule, scope: ScopeOnce, reasonHas: "allow:write_file:*.txt",
		},
		{
			name: "allow rule for another tool does not apply", rules: []string{"allow:patch"},
			answers: []Answer{Deny}, via: ViaDeny, asked: true,
		},
		{
			name: "allow rule whose glob misses asks", rules: []string{"allow:write_file:src/**"},
			answers: []Answer{AllowOnce}, allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "session allow", preGrant: true, allowed: true, via: ViaSession, scope: ScopeSession,
		},
		{
			name: "session allow ignored when not session-allowable", mutate: func(r *Request) { r.SessionAllowable = false },
			preGrant: true, answers: []Answer{Deny}, via: ViaDeny, asked: true,
		},
		{
			name: "prompt allow once", answers: []Answer{AllowOnce}, allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "prompt allow for session", answers: []Answer{AllowSession}, allowed: true, via: ViaPrompt, scope: ScopeSession, asked: true,
		},
		{
			name: "session answer on a call that cannot be kept is once", mutate: func(r *Request) { r.SessionAllowable = false },
			answers: []Answer{AllowSession}, allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "session answer without a fingerprint is once", mutate: func(r *Request) { r.Fingerprint = "" },
			answers: []Answer{AllowSession}, allowed: true, via: ViaPrompt, scope: ScopeOnce, asked: true,
		},
		{
			name: "prompt deny", answers: []Answer{Deny}, via: ViaDeny, asked: true, reasonHas: "denied by scripted",
		},
		{
			name: "an unknown answer denies", answers: []Answer{Answer(42)}, via: ViaDeny, asked: true,
		},
		{
			name: "provider error denies with the error", provErr: errors.New("tty vanished"),
			via: ViaDeny, asked: true, reasonHas: "tty vanished",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			req := writeRequest(t, auth, "notes.txt")
			if tc.mutate != nil {
				tc.mutate(&req)
			}
			sessions := NewSessionAllows(time.Hour)
			if tc.preGrant {
				sessions.Grant(clk.Now(), req)
			}
			prov := &scripted{answers: tc.answers, err: tc.provErr}
			r := &Resolver{Provider: prov, Rules: mustRules(t, tc.rules...), Sessions: sessions, Now: clk.Now}
			got, err := r.Resolve(context.Background(), req)
			if err != nil {
				t.Fatalf("Resolve error: %v", err)
			}
			if got.Allowed != tc.allowed || got.Via != tc.via || got.Scope != tc.scope {
				t.Errorf("Outcome = %+v, want allowed=%v via=%s scope=%q", got, tc.allowed, tc.via, tc.scope)
			}
			if (prov.asked > 0) != tc.asked {
				t.Errorf("provider asked %d times, want asked=%v", prov.asked, tc.asked)
			}
			if !strings.Contains(got.Reason, tc.reasonHas) || got.Reason == "" {
				t.Errorf("reason %q lacks %q", got.Reason, tc.reasonHas)
			}
			if tc.asked && prov.last.SessionAllowable && (!req.SessionAllowable || req.Fingerprint == "" || slices.ContainsFunc(tc.rules, func(r string) bool { return strings.HasPrefix(r, "prompt:") })) {
				t.Error("the provider was offered a session allow that would not be kept")
			}
			if got.Scope == ScopeSession && tc.via == ViaPrompt {
				if _, kept := sessions.Covers(clk.Now(), req); !kept {
					t.Error("an allow for the session was not recorded")
				}
			}
			if got.Scope == ScopeOnce && tc.via == ViaPrompt {
				if _, kept := sessions.Covers(clk.Now(), req); kept {
					t.Error("an allow once was recorded for the session")
				}
			}
		})
	}
}

func TestResolvePromptRuleSaysWhy(t *testing.T) {
	prov := &scripted{}
	r := &Resolver{Provider: prov, Rules: mustRules(t, "prompt:write_file")}
	r.Rules[0].Origin = "agent.yaml:7"
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	r.Resolve(context.Background(), req)
	if n := len(prov.last.Reasons); n == 0 || !strings.Contains(prov.last.Reasons[n-1], "prompt:write_file (agent.yaml:7) asks every time") {
		t.Errorf("reasons shown = %q", prov.last.Reasons)
	}
	if len(req.Reasons) != 1 {
		t.Errorf("the caller's reasons were changed: %q", req.Reasons)
	}
}

func TestResolveSessionAllowThenExpiry(t *testing.T) {
	clk := newClock()
	auth := authority(t, "s1", "rev1", "fs.write")
	prov := &scripted{answers: []Answer{AllowSession, Deny, Deny}}
	r := &Resolver{Provider: prov, Sessions: NewSessionAllows(30 * time.Minute), Now: clk.Now}
	ctx := context.Background()

	got, _ := r.Resolve(ctx, writeRequest(t, auth, "notes.txt"))
	if !got.Allowed || got.Scope != ScopeSession || prov.asked != 1 {
		t.Fatalf("first call: %+v asked=%d", got, prov.asked)
	}
	clk.Advance(29 * time.Minute)
	got, _ = r.Resolve(ctx, writeRequest(t, auth, "notes.txt"))
	if !got.Allowed || got.Via != ViaSession || prov.asked != 1 {
		t.Fatalf("within TTL: %+v asked=%d", got, prov.asked)
	}
	// Another path is another question.
	got, _ = r.Resolve(ctx, writeRequest(t, auth, "other.txt"))
	if got.Allowed || prov.asked != 2 {
		t.Fatalf("other path: %+v asked=%d", got, prov.asked)
	}
	clk.Advance(time.Minute)
	got, _ = r.Resolve(ctx, writeRequest(t, auth, "notes.txt"))
	if got.Allowed || got.Via != ViaDeny || prov.asked != 3 {
		t.Fatalf("after TTL: %+v asked=%d", got, prov.asked)
	}
}

func TestResolveZeroValueAndDenyAll(t *testing.T) {
	auth := authority(t, "s1", "rev1")
	req := writeRequest(t, auth, "notes.txt")
	for name, r := range map[string]*Resolver{
		"zero resolver": {},
		"deny-all":      {Provider: DenyAll{}, Sessions: NewSessionAllows(0)},
	} {
		got, err := r.Resolve(context.Background(), req)
		if err != nil || got.Allowed || got.Via != ViaDeny || !strings.Contains(got.Reason, "--approve allow:write_file") {
			t.Errorf("%s: %+v, %v; want a deny that says how to approve", name, got, err)
		}
	}
	auto := req
	auto.Policy = catalog.ApprovalAuto
	if got, _ := (&Resolver{}).Resolve(context.Background(), auto); !got.Allowed || got.Via != ViaAuto {
		t.Errorf("zero resolver on an auto call: %+v", got)
	}
}

// ctxProvider waits for its context, as a human who never answers.
type ctxProvider struct{}

func (ctxProvider) Name() string { return "waiting" }
func (ctxProvider) Ask(ctx context.Context, _ Request) (Answer, error) {
	<-ctx.Done()
	return Deny, ctx.Err()
}

func TestResolveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := (&Resolver{Provider: ctxProvider{}}).Resolve(ctx, writeRequest(t, authority(t, "s", "r"), "a"))
	if !errors.Is(err, context.Canceled) || got.Allowed || got.Via != ViaDeny {
		t.Fatalf("Resolve = %+v, %v; want a deny and context.Canceled", got, err)
	}
}

// TestResolveRendersThePreviewOnlyForAProvider: a preview is rendered once,
// just before a provider is asked, and never for a call decided without
// one; a preview given outright is shown as it is.
func TestResolveRendersThePreviewOnlyForAProvider(t *testing.T) {
	auth := authority(t, "s1", "rev1", "fs.write")
	for _, tc := range []struct {
		name     string
		mutate   func(*Request)
		rules    []string
		preGrant bool
		rendered int    // calls of PreviewFunc
		shown    string // the preview the provider saw ("" when not asked)
	}{
		{name: "auto policy", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto }},
		{name: "allow rule", rules: []string{"allow:write_file"}},
		{name: "deny rule", rules: []string{"deny:write_file"}},
		{name: "session allow", preGrant: true},
		{name: "block", mutate: func(r *Request) { r.Block = true }},
		{name: "deny policy", mutate: func(r *Request) { r.Policy = catalog.ApprovalDeny }},
		{name: "asked", rendered: 1, shown: "rendered"},
		{name: "asked by a prompt rule on an auto call", mutate: func(r *Request) { r.Policy = catalog.ApprovalAuto },
			rules: []string{"prompt:write_file"}, rendered: 1, shown: "rendered"},
		{name: "a preview given outright wins", mutate: func(r *Request) { r.Preview = "given" }, shown: "given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			req := writeRequest(t, auth, "notes.txt")
			req.Preview = ""
			if tc.mutate != nil {
				tc.mutate(&req)
			}
			rendered := 0
			req.PreviewFunc = func() string { rendered++; return "rendered" }
			sessions := NewSessionAllows(time.Hour)
			if tc.preGrant {
				sessions.Grant(clk.Now(), req)
			}
			prov := &scripted{answers: []Answer{AllowOnce}}
			r := &Resolver{Provider: prov, Rules: mustRules(t, tc.rules...), Sessions: sessions, Now: clk.Now}
			if _, err := r.Resolve(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if rendered != tc.rendered {
				t.Errorf("preview rendered %d times, want %d", rendered, tc.rendered)
			}
			if prov.last.Preview != tc.shown {
				t.Errorf("provider saw preview %q, want %q", prov.last.Preview, tc.shown)
			}
		})
	}
}
