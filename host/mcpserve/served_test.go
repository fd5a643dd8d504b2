package mcpserve

import (
	"context"
	"demiurge.dev/host/untrusted"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/toolhost"
)

const testToken = "test-token-0123456789abcdef"

// served is a real host behind a real loopback HTTP endpoint.
type served struct {
	URL       string
	Srv       *Server
	Host      *toolhost.Host
	Workspace string
	State     string
}

type serveOpts struct {
	core     string // agent.yaml; "" is the default core
	rules    []string
	refresh  time.Duration
	http     HTTPOptions
	maxTasks int
	addr     string // the listener's; "" is 127.0.0.1:0
}

func serve(t *testing.T, o serveOpts) *served {
	t.Helper()
	ws, state := t.TempDir(), t.TempDir()
	coreDir := ""
	if o.core != "" {
		coreDir = t.TempDir()
		if err := os.WriteFile(filepath.Join(coreDir, "agent.yaml"), []byte(o.core), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: ws, StateDir: state, BuiltinPluginDir: builtinDir,
		Approver: approval.DenyAll{}, Rules: o.rules, Principal: "local:tester"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	refresh := o.refresh
	if refresh == 0 {
		refresh = -1
	}
	srv, err := New(ctx, Options{Host: h, Refresh: refresh, ApprovalTimeout: 20 * time.Second, MaxTasks: o.maxTasks})
	if err != nil {
		cancel()
		h.Close()
		t.Fatal(err)
	}
	addr := o.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	hopts := o.http
	if hopts.Token == "" {
		hopts.Token = testToken
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln, hopts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not shut down within 20s")
		}
		h.Close()
	})
	return &served{URL: "http://" + ln.Addr().String() + EndpointPath, Srv: srv, Host: h, Workspace: ws, State: state}
}

// answerer is an elicitation handler that answers every approval with
// one decision and counts what it was asked.
type answerer struct {
	decision string
	asked    atomic.Int32
	last     atomic.Value // string: the last message
	choices  atomic.Value // []any: the decisions the last form offered
}

func (a *answerer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	a.last.Store(req.Params.Message)
	if props, ok := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any); ok {
		if d, ok := props["decision"].(map[string]any); ok {
			if enum, ok := d["enum"].([]any); ok {
				a.choices.Store(enum)
			}
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"decision": a.decision}}}, nil
}

// connect starts an mcp-go client on s, on the given protocol version,
// answering approvals with ans when it is not nil.
func connect(t *testing.T, s *served, version string, ans *answerer, tropts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	opts := []client.ClientOption{client.WithProtocolVersion(version)}
	if ans != nil {
		opts = append(opts, client.WithElicitationHandler(ans))
	}
	tropts = append(tropts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken}))
	tr, err := transport.NewStreamableHTTP(s.URL, tropts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpserve-test", Version: "1"}
	init.Params.ProtocolVersion = version
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize %s: %v", version, err)
	}
	if res.ProtocolVersion != version {
		t.Fatalf("negotiated %q, want %q", res.ProtocolVersion, version)
	}
	// Every client is told what the untrusted-output envelope means.
	if !strings.Contains(res.Instructions, untrusted.Instructions) {
		t.Fatalf("the server's instructions do not explain the envelope: %q", res.Instructions)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// call makes one tools/call with a deadline.
func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

var versions = []string{mcp.ProtocolVersion20251125, mcp.ProtocolVersion20260728}
