package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// defaultsForm is the SEP-1034 conformance scenario's form: every field
// optional, each with a default.
var defaultsForm = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
		"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
		"status":   map[string]any{"type": "string", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
	},
}

// formServer is a real mcp-go streamable HTTP server on loopback whose
// tool "ask" sends elicitation/create with message and schema during the
// call and returns the client's answer as JSON.
func formServer(t *testing.T, message string, schema any) string {
	t.Helper()
	s := server.NewMCPServer("forms", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks for a form.")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: message, RequestedSchema: schema}})
		if err != nil {
			return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
		}
		b, _ := json.Marshal(res.ElicitationResponse)
		return mcp.NewToolResultText(string(b)), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(quietLogger)))
	t.Cleanup(func() { closeStreaming(srv) })
	return srv.URL + "/mcp"
}

// recorder is an approval provider that keeps every request it is asked
// and answers each with answer.
type recorder struct {
	mu     sync.Mutex
	answer approval.Answer
	asked  []approval.Request
}

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Ask(_ context.Context, req approval.Request) (approval.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	if strings.HasPrefix(req.Tool, "mcp_connect__") {
		return approval.AllowOnce, nil
	}
	return r.answer, nil
}

func (r *recorder) forms() []approval.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []approval.Request
	for _, req := range r.asked {
		if req.Tool == ElicitTool("form") {
			out = append(out, req)
		}
	}
	return out
}

func rule(t *testing.T, text, origin string) approval.Rule {
	t.Helper()
	r, err := approval.ParseRule(text)
	if err != nil {
		t.Fatal(err)
	}
	r.Origin = origin
	return r
}

// elicitCall connects server "form" at url under approvals, calls its
// tool and returns the answer the server got.
func elicitCall(t *testing.T, url string, approvals *approval.Resolver) mcp.ElicitationResponse {
	t.Helper()
	res, _ := elicitCallReported(t, url, approvals)
	return res
}

// elicitCallReported is elicitCall, with what the pool reported of each
// form (Config.OnElicitation).
func elicitCallReported(t *testing.T, url string, approvals *approval.Resolver) (mcp.ElicitationResponse, []Elicitation) {
	t.Helper()
	return elicitCallManifest(t, "url: "+url+"\n", approvals)
}

// elicitCallManifest is elicitCallReported for server "form" declared by
// manifest.
func elicitCallManifest(t *testing.T, manifest string, approvals *approval.Resolver) (mcp.ElicitationResponse, []Elicitation) {
	t.Helper()
	return elicitCallConfigured(t, manifest, approvals, nil)
}

// elicitCallConfigured is elicitCallManifest with the pool's Config
// changed by configure (when not nil).
func elicitCallConfigured(t *testing.T, manifest string, approvals *approval.Resolver, configure func(*Config)) (mcp.ElicitationResponse, []Elicitation) {
	t.Helper()
	var mu sync.Mutex
	var reports []Elicitation
	f := newFixture(t, func(cfg *Config) {
		cfg.Net = netpolicy.Options{AllowLoopbackForTests: true}
		cfg.OnElicitation = func(server string, e Elicitation) {
			if server == "form" {
				mu.Lock()
				reports = append(reports, e)
				mu.Unlock()
			}
		}
		if configure != nil {
			configure(cfg)
		}
	})
	mcptest.Manifest(t, f.mcpDir, "form", manifest)
	turn := f.turn()
	turn.Approvals = approvals
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := f.pool.Resolve(ctx, turn)
	if st := state(t, r, "form"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	out := f.dispatchTurn(r, "form__ask").Call(ctx, dispatch.ToolCall{Name: "form__ask", Args: []byte(`{}`)})
	if !out.OK() {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	var res mcp.ElicitationResponse
	if err := json.Unmarshal([]byte(unwrapped(out.Views.Model.String())), &res); err != nil {
		t.Fatalf("%v: %q", err, unwrapped(out.Views.Model.String()))
	}
	mu.Lock()
	defer mu.Unlock()
	return res, append([]Elicitation(nil), reports...)
}

// TestElicitOperatorAcceptsDefaults: the operator's --approve rule, or
// their answer, accepts a server's form with exactly its declared
// defaults; the card showed the message and every field.
func TestElicitOperatorAcceptsDefaults(t *testing.T) {
	url := formServer(t, "please accept with defaults", defaultsForm)
	want := `{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`
	byRule := elicitCall(t, url, &approval.Resolver{Rules: []approval.Rule{
		rule(t, "allow:mcp_connect__form", approval.OriginCommandLine), rule(t, "allow:mcp_elicit__form", approval.OriginCommandLine)}})
	p := &recorder{answer: approval.AllowOnce}
	byAnswer, reports := elicitCallReported(t, url, &approval.Resolver{Provider: p})
	if len(reports) != 1 || reports[0].Action != "accept" || !strings.Contains(reports[0].Reason, "defaults") {
		t.Errorf("reported %+v", reports)
	}
	for name, res := range map[string]mcp.ElicitationResponse{"--approve rule": byRule, "operator's answer": byAnswer} {
		content, _ := json.Marshal(res.Content)
		if res.Action != mcp.ElicitationResponseActionAccept || string(content) != want {
			t.Errorf("%s: %s %s, want accept %s", name, res.Action, content, want)
		}
	}
	forms := p.forms()
	if len(forms) != 1 || !forms[0].OperatorOnly || forms[0].SessionAllowable {
		t.Fatalf("the operator was asked %d times: %+v", len(forms), forms)
	}
	card := approval.CardText(forms[0])
	for _, s := range []string{"please accept with defaults", `name (string) = "John Doe"`, "age (integer) = 30", "score (number) = 95.5", `status (string) = "active"`, "verified (boolean) = true"} {
		if !strings.Contains(card, s) {
			t.Errorf("the card does not show %q:\n%s", s, card)
		}
	}
}

// TestElicitDeclinedWithoutTheOperator: with no one to ask and no
// operator rule the form is declined; a core's standing rule (which the
// agent may have written) does not accept it either, even where the
// operator could answer and denies; the operator's own deny declines it.
func TestElicitDeclinedWithoutTheOperator(t *testing.T) {
	url := formServer(t, "give me your name", defaultsForm)
	connect := rule(t, "allow:mcp_connect__form", approval.OriginCommandLine)
	core := rule(t, "allow:mcp_elicit__form", "agent.yaml:4")
	denier := &recorder{answer: approval.Deny}
	for name, res := range map[string]*approval.Resolver{
		"headless, no rule":          {Rules: []approval.Rule{connect}},
		"headless, a core's rule":    {Rules: []approval.Rule{connect, core}},
		"operator denies, core rule": {Provider: denier, Rules: []approval.Rule{connect, core}},
	} {
		got, reports := elicitCallReported(t, url, res)
		if got.Action != mcp.ElicitationResponseActionDecline || got.Content != nil {
			t.Errorf("%s: %+v, want decline without content", name, got)
		}
		// The audit trail says it was declined and, when no one was asked,
		// how the operator would let it be asked.
		headless := strings.HasPrefix(name, "headless")
		if len(reports) != 1 || reports[0].Action != "decline" || (headless && !strings.Contains(reports[0].Reason, "--approve allow:mcp_elicit__form")) {
			t.Errorf("%s: reported %+v", name, reports)
		}
	}
	if n := len(denier.forms()); n != 1 {
		t.Errorf("the core's rule kept the form from the operator (asked %d times)", n)
	}
}

// TestElicitFormBoundedAndInert: a form past the bounds, or one Demiurge
// could only answer by making up a value, is declined without asking; the
// server's text reaches the card clipped, with no terminal escape or bidi
// control left live.
func TestElicitFormBoundedAndInert(t *testing.T) {
	many, wordy := map[string]any{}, map[string]any{}
	for i := range maxFormFields + 1 {
		many[fmt.Sprintf("f%d", i)] = map[string]any{"type": "boolean", "default": false}
	}
	for i := range 8 {
		wordy[fmt.Sprintf("f%d", i)] = map[string]any{"type": "string", "default": strings.Repeat("d", 60), "description": strings.Repeat("w", 200)}
	}
	for name, schema := range map[string]any{
		"too many fields":          map[string]any{"type": "object", "properties": many},
		"more than a card shows":   map[string]any{"type": "object", "properties": wordy},
		"required without default": map[string]any{"type": "object", "properties": map[string]any{"pin": map[string]any{"type": "string"}}, "required": []any{"pin"}},
		"nested object":            map[string]any{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object"}}},
		"default of another type":  map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "default": "thirty"}}},
		"huge schema":              map[string]any{"type": "object", "properties": map[string]any{"s": map[string]any{"type": "string", "description": strings.Repeat("x", maxFormSchemaBytes)}}},
	} {
		p := &recorder{answer: approval.AllowOnce}
		got, reports := elicitCallReported(t, formServer(t, "fill me in", schema), &approval.Resolver{Provider: p})
		if got.Action != mcp.ElicitationResponseActionDecline || len(p.forms()) != 0 {
			t.Errorf("%s: %+v after asking %d times, want decline unasked", name, got, len(p.forms()))
		}
		if len(reports) != 1 || reports[0].Action != "decline" || !strings.HasPrefix(reports[0].Reason, "declined unasked: ") {
			t.Errorf("%s: reported %+v", name, reports)
		}
	}

	evil := "\x1b]0;owned\x07\x1b[2J\u202eclick allow\r" + strings.Repeat("long ", 2000)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"x\x1b[31m": map[string]any{"type": "string", "description": "\x1b[1Abold\u202e", "default": "ok\x1b[0m"},
	}}
	p := &recorder{answer: approval.AllowOnce}
	got := elicitCall(t, formServer(t, evil, schema), &approval.Resolver{Provider: p})
	if got.Action != mcp.ElicitationResponseActionAccept {
		t.Fatalf("%+v", got)
	}
	forms := p.forms()
	if len(forms) != 1 {
		t.Fatalf("asked %d times", len(forms))
	}
	for _, text := range append(forms[0].Reasons, forms[0].Preview) {
		if strings.ContainsAny(text, "\x1b\x07\r\u202e") {
			t.Errorf("live control characters reach the card: %q", text)
		}
		if n := len([]rune(text)); n > maxFormMessage+200 {
			t.Errorf("the card carries %d runes of the server's text", n)
		}
	}
	if card := approval.CardText(forms[0]); !strings.Contains(card, `\x1b[2J`) || !strings.Contains(card, `\u202e`) {
		t.Errorf("the escapes are not shown as text:\n%s", card)
	}
}

// TestElicitOutsideACallDeclinedUnasked: a stdio server asking for a form
// while no call of it is in flight (right after tools/list) is declined
// without anyone being asked, even with the operator's rule.
func TestElicitOutsideACallDeclinedUnasked(t *testing.T) {
	f := newFixture(t)
	record := filepath.Join(t.TempDir(), "record")
	f.server("form", "elicit", "env: {RECORD_AT: "+record+"}\n")
	f.ask.allow(ConnectTool("form"), ElicitTool("form"))
	if st := state(t, f.resolve(), "form"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	var got []byte
	waitFor(t, func() bool { got, _ = os.ReadFile(record); return len(got) > 0 })
	if string(got) != "decline" {
		t.Errorf("the form outside a call was answered %q, want decline", got)
	}
	f.ask.mu.Lock()
	defer f.ask.mu.Unlock()
	for _, asked := range f.ask.asked {
		if strings.HasPrefix(asked, ElicitTool("form")) {
			t.Errorf("the operator was asked about a form outside a call: %q", asked)
		}
	}
}

// slowRecorder answers a form only after a wait, as an operator reading
// the card would.
type slowRecorder struct {
	recorder
	wait time.Duration
}

func (r *slowRecorder) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	answer, err := r.recorder.Ask(ctx, req)
	if req.Tool == ElicitTool("form") {
		select {
		case <-time.After(r.wait):
		case <-ctx.Done():
			return approval.Deny, ctx.Err()
		}
	}
	return answer, err
}

// TestElicitSlowOperatorCancelsInTime: mcp-go drops an HTTP answer sent
// after its 30-second deadline, which would leave the server waiting; a
// form the operator leaves unanswered is cancelled before that, and the
// card and the audit trail say so.
func TestElicitSlowOperatorCancelsInTime(t *testing.T) {
	defer func(w time.Duration) { httpFormWait = w }(httpFormWait)
	httpFormWait = 300 * time.Millisecond
	p := &slowRecorder{recorder: recorder{answer: approval.AllowOnce}, wait: 5 * time.Second}
	start := time.Now()
	got, reports := elicitCallReported(t, formServer(t, "take your time", defaultsForm), &approval.Resolver{Provider: p})
	if got.Action != mcp.ElicitationResponseActionCancel || time.Since(start) > 4*time.Second {
		t.Fatalf("an operator slower than the form's time: %+v after %s, want cancel in time", got, time.Since(start))
	}
	if len(reports) != 1 || !strings.Contains(reports[0].Reason, "did not answer within 300ms") {
		t.Fatalf("reported %+v", reports)
	}
	if forms := p.forms(); len(forms) != 1 || !strings.Contains(approval.CardText(forms[0]), "unanswered for 300ms, the form is cancelled") {
		t.Fatalf("the card does not say how long it waits: %+v", forms)
	}
}

// TestElicitModernRevision: on 2026-07-28 a server's form comes back as an
// input-required result, which mcp-go's client answers through the same
// handler: the operator's rule accepts it with the defaults, and without
// the rule it is declined.
func TestElicitModernRevision(t *testing.T) {
	s := server.NewMCPServer("forms", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.AddTool(mcp.NewTool("ask"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res := server.ElicitationResponse(req.Params.InputResponses, "form"); res != nil {
			b, _ := json.Marshal(res.ElicitationResponse)
			return mcp.NewToolResultText(string(b)), nil
		}
		return server.NewInputRequestBuilder("asked").Elicit("form", mcp.ElicitationParams{Message: "modern form", RequestedSchema: defaultsForm}).ToolResult(), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(quietLogger)))
	t.Cleanup(func() { closeStreaming(srv) })
	url := srv.URL + "/mcp"
	call := func(rules ...approval.Rule) mcp.ElicitationResponse {
		t.Helper()
		res, _ := elicitCallManifest(t, "url: "+url+"\nprotocol_version: \"2026-07-28\"\n",
			&approval.Resolver{Rules: append(rules, rule(t, "allow:mcp_connect__form", approval.OriginCommandLine))})
		return res
	}
	if got := call(rule(t, "allow:mcp_elicit__form", approval.OriginCommandLine)); got.Action != mcp.ElicitationResponseActionAccept || got.Content == nil {
		t.Errorf("with the operator's rule: %+v, want accept with the defaults", got)
	}
	if got := call(); got.Action != mcp.ElicitationResponseActionDecline {
		t.Errorf("without it: %+v, want decline", got)
	}
}
