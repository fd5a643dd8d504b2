package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// script is a model for the loop's tests: each step answers the request
// it is given. It refuses, as a provider does, any request larger than
// its context window (counted at four bytes a token, which is what the
// loop's estimate must stay above).
type script struct {
	window int
	// uncounted skips the size check (benchmarks of the host's part).
	uncounted bool
	step      func(n int, req providers.Request) (providers.Reply, error)
	// stream, when set, replaces step: it may send deltas and block.
	stream func(ctx context.Context, n int, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error)

	mu   sync.Mutex
	reqs []providers.Request
}

func (s *script) Name() string { return "script:test" }

func (s *script) ContextWindow() int {
	if s.window == 0 {
		return 200000
	}
	return s.window
}

func (s *script) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	if tokens := wireTokens(req) + req.MaxOutputTokens; !s.uncounted && tokens > s.ContextWindow() {
		return providers.Reply{}, fmt.Errorf("400 invalid_request_error: prompt is too long: %d tokens > %d maximum", tokens, s.ContextWindow())
	}
	if s.stream != nil {
		return s.stream(ctx, n, req, onDelta)
	}
	r, err := s.step(n, req)
	if err == nil && r.Text != "" {
		onDelta(providers.Delta{Text: r.Text})
	}
	if r.Usage.InputTokens == 0 && !s.uncounted {
		r.Usage = providers.Usage{InputTokens: int64(wireTokens(req)), OutputTokens: int64(len(r.Text)/4 + 1)}
	}
	return r, err
}

func wireTokens(req providers.Request) int {
	b, _ := json.Marshal(req)
	return len(b) / 4
}

func (s *script) requests() []providers.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]providers.Request(nil), s.reqs...)
}

func call(id, name, args string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: name, Args: args}
}

func calls(cs ...providers.ToolCall) providers.Reply {
	return providers.Reply{ToolCalls: cs, Stop: providers.StopToolUse}
}

func answer(text string) providers.Reply {
	return providers.Reply{Text: text, Stop: providers.StopEndTurn}
}

// lastResults are the tool results of the request's last message.
func lastResults(t *testing.T, req providers.Request) []providers.ToolResult {
	t.Helper()
	if len(req.Messages) == 0 {
		t.Fatal("the request has no messages")
	}
	m := req.Messages[len(req.Messages)-1]
	if m.Role != providers.RoleTool {
		t.Fatalf("the request's last message is %s, want tool results", m.Role)
	}
	return m.ToolResults
}

// recorder is a front end that keeps every event and answers approvals
// with its approver.
type recorder struct {
	approver approval.Provider
	clarify  func(string, []string) (string, bool)

	mu     sync.Mutex
	events []turn.Event
}

func (r *recorder) Show(ev turn.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) Approver() approval.Provider {
	if r.approver == nil {
		return approval.DenyAll{}
	}
	return r.approver
}

func (r *recorder) Clarify(_ context.Context, q string, choices []string) (string, bool, error) {
	if r.clarify == nil {
		return "", false, nil
	}
	a, ok := r.clarify(q, choices)
	return a, ok, nil
}

func (r *recorder) all() []turn.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]turn.Event(nil), r.events...)
}

func (r *recorder) kinds() string {
	var k []string
	for _, ev := range r.all() {
		k = append(k, string(ev.Type))
	}
	return strings.Join(k, " ")
}

func (r *recorder) of(kind turn.EventKind) []turn.Event {
	var out []turn.Event
	for _, ev := range r.all() {
		if ev.Type == kind {
			out = append(out, ev)
		}
	}
	return out
}

// answerer is an approval provider that answers every prompt the same
// and counts them.
type answerer struct {
	answer approval.Answer
	onAsk  func()
	mu     sync.Mutex
	asked  []string
}

func (a *answerer) Name() string { return "test-answerer" }

func (a *answerer) Ask(_ context.Context, req approval.Request) (approval.Answer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Tool)
	a.mu.Unlock()
	if a.onAsk != nil {
		a.onAsk()
	}
	return a.answer, nil
}

func (a *answerer) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// fixture is a real host over the built plugins, a workspace and a state
// directory, with a loop over its session.
type fixture struct {
	h         *toolhost.Host
	workspace string
	state     string
	store     *runtime.Store
	loop      *turn.Loop
	model     *script
	// core, when set, is the directory of the core the host runs (else
	// the default core).
	core string
}

func newFixture(t testing.TB, model *script, rules ...string) *fixture {
	t.Helper()
	f := &fixture{workspace: t.TempDir(), state: t.TempDir(), model: model}
	f.open(t, rules...)
	return f
}

// open (re)opens the host over the fixture's workspace and state.
func (f *fixture) open(t testing.TB, rules ...string) {
	t.Helper()
	h, err := toolhost.Open(toolhost.Options{Workspace: f.workspace, StateDir: f.state, CoreDir: f.core, BuiltinPluginDir: pluginDir, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	f.h, f.store = h, store
	f.loop = &turn.Loop{Provider: f.model, Session: h.Session(), Store: store, System: "You are a test agent."}
	t.Cleanup(f.loop.Close)
}

func (f *fixture) write(t testing.TB, name, content string) {
	t.Helper()
	p := filepath.Join(f.workspace, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) messages(t *testing.T) []runtime.MessageRecord {
	t.Helper()
	msgs, err := f.store.Messages(f.h.Session().ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func roles(msgs []runtime.MessageRecord) string {
	var r []string
	for _, m := range msgs {
		s := m.Role
		if m.Status != "" {
			s += "(" + m.Status + ")"
		}
		if m.Summary {
			s += "(summary)"
		}
		r = append(r, s)
	}
	return strings.Join(r, " ")
}

// validHistory checks what every provider requires of a history: it
// starts with the operator, each assistant message's calls are answered by
// the next message, result for result, and results answer only those.
func validHistory(t *testing.T, msgs []providers.Message) {
	t.Helper()
	if len(msgs) == 0 || msgs[0].Role != providers.RoleUser {
		t.Fatalf("history does not start with the operator: %+v", msgs)
	}
	for i, m := range msgs {
		switch m.Role {
		case providers.RoleAssistant:
			if len(m.ToolCalls) == 0 {
				continue
			}
			if i+1 >= len(msgs) || msgs[i+1].Role != providers.RoleTool {
				t.Fatalf("message %d: tool calls without results: %+v", i, msgs)
			}
			res := msgs[i+1].ToolResults
			if len(res) != len(m.ToolCalls) {
				t.Fatalf("message %d: %d calls, %d results", i, len(m.ToolCalls), len(res))
			}
			for j, c := range m.ToolCalls {
				if res[j].CallID != c.ID {
					t.Fatalf("message %d: result %d answers %q, want %q", i, j, res[j].CallID, c.ID)
				}
			}
		case providers.RoleTool:
			if i == 0 || msgs[i-1].Role != providers.RoleAssistant || len(msgs[i-1].ToolCalls) == 0 {
				t.Fatalf("message %d: tool results that answer no calls", i)
			}
		case providers.RoleUser:
			if i > 0 && msgs[i-1].Role == providers.RoleUser {
				t.Fatalf("message %d: two operator messages in a row", i)
			}
		}
	}
}
