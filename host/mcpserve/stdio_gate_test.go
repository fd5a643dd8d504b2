package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/toolhost"
)

// TestStdioRequestsInProgressAreBounded: a real mcp-go client over a pipe
// sends many requests other than tools/call at once, each of which its
// handler holds: at most MaxStdioRequests are ever in progress (mcp-go
// gave each its own goroutine with no bound), every other is answered
// "server busy" at once, the admitted ones complete when let go, and
// their places are free again afterwards.
func TestStdioRequestsInProgressAreBounded(t *testing.T) {
	const max, n = 4, 48
	h, err := toolhost.Open(toolhost.Options{Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Approver: approval.DenyAll{}, Principal: "local:tester"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := New(ctx, Options{Host: h, Refresh: -1, MaxStdioRequests: max})
	if err != nil {
		t.Fatal(err)
	}
	// A resource whose read waits until it is let go: a request that
	// stays in progress, as a slow tools/list or a blocking handler does.
	var inside, most atomic.Int32
	release := make(chan struct{})
	srv.mcp.AddResource(mcp.NewResource("test://slow", "slow"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		v := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); v > m && !most.CompareAndSwap(m, v); m = most.Load() {
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "ok"}}, nil
	})
	gates := make(chan *requestGate, 1)
	testHookStdioGate = func(g *requestGate) { gates <- g }
	defer func() { testHookStdioGate = nil }()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, outW, io.Discard); outW.Close() }()
	gate := <-gates
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "gate-test", Version: "1"}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()

	var busy, ok atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := mcp.ReadResourceRequest{}
			req.Params.URI = "test://slow"
			_, err := c.ReadResource(ctx, req)
			switch {
			case err == nil:
				ok.Add(1)
			case strings.Contains(err.Error(), "server busy"):
				busy.Add(1)
			default:
				t.Errorf("read: %v", err)
			}
		}()
	}
	// Every request has arrived: held by its handler, or refused.
	for inside.Load()+busy.Load() < n {
		time.Sleep(time.Millisecond)
	}
	t.Logf("%d in progress, %d refused busy; goroutines %+d (the client's %d reads still waiting among them)",
		inside.Load(), busy.Load(), runtime.NumGoroutine()-before, n-busy.Load())
	if m := most.Load(); m > max {
		t.Fatalf("%d requests were in progress at once; at most %d may", m, max)
	}
	if busy.Load() != n-max || gate.inProgress() != max {
		t.Fatalf("%d refused busy (want %d), %d in progress by the gate (want %d)", busy.Load(), n-max, gate.inProgress(), max)
	}
	close(release)
	wg.Wait()
	if ok.Load() != max {
		t.Fatalf("%d reads completed, want %d", ok.Load(), max)
	}
	if g := gate.inProgress(); g != 0 {
		t.Fatalf("after every answer the gate holds %d places", g)
	}
	// The places are free again: the next read is served.
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "test://slow"
	if _, err := c.ReadResource(ctx, req); err != nil {
		t.Fatalf("a read after the others: %v", err)
	}
	inW.Close()
	cancel()
	<-done
}

// TestStdioGateReadsIDsAsMCPGoDoes: whatever the spelling of a request's
// id, its response (mcp-go writes the id back as it holds it: 1.0 as 1,
// "\u0041" as "A"; -0 as -0, for every method tried) frees its place; a request whose id mcp-go
// cannot hold, or that also carries a result (which mcp-go would take as
// a response and never answer, holding the place for good), is refused
// before it reaches mcp-go.
func TestStdioGateReadsIDsAsMCPGoDoes(t *testing.T) {
	gates := make(chan *requestGate, 1)
	testHookStdioGate = func(g *requestGate) { gates <- g }
	defer func() { testHookStdioGate = nil }()
	s := serveStdio(t, 0)
	gate := <-gates
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.next(t)
	// Answers mcp-go writes by different paths: its own (ping), a
	// handler's result, method not found, capabilities not served.
	for _, method := range []string{"ping", "tools/list", "no/such", "resources/list", "prompts/list", "logging/setLevel"} {
		for _, id := range []string{`1.0`, `-0`, `1e0`, `"\u0041"`, `12345678901234567890`, `0.1`, `-7`, `"x\ud800"`} {
			s.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`"}`)
			m := s.next(t)
			if m["result"] == nil && m["error"] == nil {
				t.Fatalf("%s with id %s: %v", method, id, m)
			}
			t.Logf("%s id %s answered as %#v", method, id, m["id"])
			if g := gate.inProgress(); g != 0 {
				t.Fatalf("after the answer to %s id %s (written back as %v) the gate holds %d places", method, id, m["id"], g)
			}
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping","result":{}}`,
		`{"jsonrpc":"2.0","id":6,"method":"ping","error":null}`,
		`{"jsonrpc":"2.0","ID":7,"Method":"ping","Result":1}`,
	} {
		s.send(t, line)
		m := s.next(t)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || m["id"] != nil {
			t.Errorf("%s: %v", line, m)
		}
		if g := gate.inProgress(); g != 0 {
			t.Fatalf("after %s the gate holds %d places", line, g)
		}
	}
}

// TestResponseIDIsTheDecoders: the gate's look at a written message's
// top-level keys finds what decoding it would (a response is an id and no
// method), for the shapes mcp-go writes and their reorderings.
func TestResponseIDIsTheDecoders(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","description":"}\"{"}]}}`,
		`{"jsonrpc":"2.0","id":"x\"y","error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","result":{},"id":4}`,
		`{"jsonrpc":"2.0","id":5,"params":{"message":"approve?"},"method":"elicitation/create"}`,
		`{"jsonrpc":"2.0","method":"ping","id":6}`,
		`{"jsonrpc":"2.0","id":7,"method":null,"result":1}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
		`{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`,
		`{"id":1.5e3 ,"result":[1,{"id":2}]}`,
		`[]`, `null`,
	} {
		var m struct {
			Method *string         `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		err := json.Unmarshal([]byte(msg), &m)
		want := err == nil && m.Method == nil && !noID(m.ID)
		id, got := responseID([]byte(msg))
		if got != want || (got && string(id) != string(m.ID)) {
			t.Errorf("%s: id %s, response %v; the decoder: id %s, response %v", msg, id, got, m.ID, want)
		}
	}
}

// BenchmarkGateWritten is the gate's look at a 91 KB tools/list answer
// (decoding it cost 2 ms, three times what marshalling it did).
func BenchmarkGateWritten(b *testing.B) {
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Schema      map[string]any `json:"inputSchema"`
	}
	var tools []tool
	for i := 0; i < 60; i++ {
		tools = append(tools, tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("Reads a file \"quoted\" and more. ", 40),
			Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}})
	}
	msg, _ := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), map[string]any{"tools": tools}))
	g := newRequestGate(32)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		g.mu.Lock()
		g.n, g.ids["n7"] = 1, 1
		g.mu.Unlock()
		g.written(msg)
		if g.n != 0 {
			b.Fatal("not ended")
		}
	}
}
