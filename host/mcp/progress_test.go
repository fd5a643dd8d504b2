package mcp

import (
	"context"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/dispatch"
)

// TestProgressNotificationsReachTheCall: a server's notifications/progress
// for the call's token arrive as the call's progress events, in order,
// with their fraction; the tool's result is unchanged.
func TestProgressNotificationsReachTheCall(t *testing.T) {
	f := newFixture(t)
	f.server("progress", "progress", "")
	f.ask.allow(ConnectTool("progress"))
	r := f.resolve()
	if st := state(t, r, "progress"); st.Status != StatusConnected {
		t.Fatalf("progress server: %+v", st)
	}
	turn := f.dispatchTurn(r, "progress__slow")
	var mu sync.Mutex
	var got []dispatch.Event
	turn.OnEvent = func(_ string, ev dispatch.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "p1", Name: "progress__slow", Args: []byte(`{}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "done in three steps" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0].Progress != "step one" || got[1].Progress != "step two" || got[2].Fraction != 1 {
		t.Fatalf("progress events %+v", got)
	}
	if got[0].Fraction < 0.33 || got[0].Fraction > 0.34 {
		t.Errorf("first fraction %v, want 1/3", got[0].Fraction)
	}
}

// TestProgressAskedOnlyWithAListener: a turn with no one to take progress
// events (Turn.OnEvent unset) sends no progress token, so the server
// reports none; the same call with a listener gets a token and the events.
func TestProgressAskedOnlyWithAListener(t *testing.T) {
	f := newFixture(t)
	f.server("progress", "progress", "")
	f.ask.allow(ConnectTool("progress"))
	r := f.resolve()
	if st := state(t, r, "progress"); st.Status != StatusConnected {
		t.Fatalf("progress server: %+v", st)
	}
	tokens := &f.pool.conns["progress"].c.progress.next
	call := dispatch.ToolCall{ID: "p1", Name: "progress__slow", Args: []byte(`{}`)}
	quiet := f.dispatchTurn(r, "progress__slow")
	if out := quiet.Call(context.Background(), call); !out.OK() || unwrapped(out.Views.Model.String()) != "done in three steps" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	if n := tokens.Load(); n != 0 {
		t.Fatalf("%d progress tokens given with no listener", n)
	}
	heard := f.dispatchTurn(r, "progress__slow")
	var mu sync.Mutex
	events := 0
	heard.OnEvent = func(string, dispatch.Event) { mu.Lock(); events++; mu.Unlock() }
	if out := heard.Call(context.Background(), call); !out.OK() {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	mu.Lock()
	defer mu.Unlock()
	if n := tokens.Load(); n != 1 || events != 3 {
		t.Fatalf("with a listener: %d tokens, %d events; want 1 and 3", n, events)
	}
}

// TestProgressRoutes: a notification reaches only the call holding its
// token, and none after the call ended; other methods and made-up
// tokens are dropped.
func TestProgressRoutes(t *testing.T) {
	var p progressRoutes
	var a, b []string
	ta, doneA := p.add(func(m string, _ float64) { a = append(a, m) })
	tb, doneB := p.add(func(m string, _ float64) { b = append(b, m) })
	defer doneB()
	note := func(method, token string, fields map[string]any) {
		n := mcp.JSONRPCNotification{}
		n.Method = method
		n.Params.AdditionalFields = map[string]any{"progressToken": token}
		for k, v := range fields {
			n.Params.AdditionalFields[k] = v
		}
		p.notify(n)
	}
	note("notifications/progress", ta, map[string]any{"message": "for a", "progress": 1.0})
	note("notifications/progress", tb, map[string]any{"progress": 2.0, "total": 4.0})
	note("notifications/message", ta, map[string]any{"message": "not progress"})
	note("notifications/progress", "demiurge-999", map[string]any{"message": "made up"})
	doneA()
	note("notifications/progress", ta, map[string]any{"message": "after the end"})
	if len(a) != 1 || a[0] != "for a" || len(b) != 1 || b[0] != "2 of 4" {
		t.Fatalf("a %q, b %q", a, b)
	}
}
