package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// recording answers like answer and keeps what each card said.
type recording struct {
	a       approval.Answer
	reasons [][]string
}

func (p *recording) Name() string { return "recording" }
func (p *recording) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	p.reasons = append(p.reasons, r.Reasons)
	return p.a, nil
}

// loopbackListener counts the connections a command makes to it.
func loopbackListener(t *testing.T) (port int, accepted *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted = &atomic.Int32{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, accepted
}

// waitAccepted waits (with its own deadline) for n connections.
func waitAccepted(t *testing.T, accepted *atomic.Int32, n int32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for accepted.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the listener saw %d connections, want %d", accepted.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNetworkIsPerApprovedCall: under workspace-write, an approved
// command cannot reach a loopback listener; the same command with
// `network: true` asks (even when the guard would let it run unasked),
// its card says what it can reach, and under mode network it connects
// through the egress proxy only (the operator's allowance), each
// connection an audit event of the call;
// denied, it does not run; a read-only session refuses it.
func TestNetworkIsPerApprovedCall(t *testing.T) {
	h := newHarness(t)
	helper := buildSandboxHelper(t)
	port, accepted := loopbackListener(t)
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, port)
	args := func(cmd string, network bool) []byte {
		return []byte(fmt.Sprintf(`{"command":%q,"network":%v}`, cmd, network))
	}
	cfg := sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}

	// Offline: approved, but no network asked for.
	p := &recording{a: approval.AllowOnce}
	turn, _ := h.terminalTurn(t, p)
	turn.Sandbox = cfg
	out := turn.Call(context.Background(), ToolCall{ID: "off", Name: "terminal", Args: args(connect, false)})
	if strings.Contains(out.Views.Model.String(), "connected") || accepted.Load() != 0 {
		t.Fatalf("an offline command reached the loopback listener: %s", out.Views.Model.String())
	}
	for _, r := range p.reasons {
		if strings.Contains(strings.Join(r, "\n"), "network access") {
			t.Fatalf("an offline call's card speaks of network access: %v", r)
		}
	}

	// Network asked for and approved: the loopback listener is reached
	// through the egress proxy, by the operator's exact allowance, and a
	// direct connection to it still has no route.
	allowed := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	netCfg := cfg
	netCfg.Egress = sandboxing.Egress{Allow: []netip.AddrPort{allowed}}
	viaProxy := fmt.Sprintf(`NO_PROXY= no_proxy= curl -s -o /dev/null --max-time 10 http://127.0.0.1:%d/; echo proxied; (%s) 2>/dev/null || echo direct-refused`, port, connect)
	p = &recording{a: approval.AllowOnce}
	turn, _ = h.terminalTurn(t, p)
	turn.Sandbox = netCfg
	out = turn.Call(context.Background(), ToolCall{ID: "net", Name: "terminal", Args: args(viaProxy, true)})
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "proxied") || !strings.Contains(out.Views.Model.String(), "direct-refused") || strings.Contains(out.Views.Model.String(), "connected") {
		t.Fatalf("a network-approved command: %s %s", out.Status, out.Views.Model.String())
	}
	waitAccepted(t, accepted, 1)
	card := strings.Join(p.reasons[0], "\n")
	if len(p.reasons) != 1 || !strings.Contains(card, NetworkReason) || !strings.Contains(card, "egress proxy") || !strings.Contains(card, allowed.String()) {
		t.Fatalf("the card did not say what the command can reach: %v", p.reasons)
	}
	// Attribution: the connection is an audit event of the call, and the
	// call's own audit lists it (the listener hangs up without an answer:
	// allowed, dialled, then failed).
	evs, err := h.store.Events(runtime.EventQuery{Kind: EventKindNetConnection})
	if err != nil || len(evs) != 1 || evs[0].CallID != "net" {
		t.Fatalf("connection events: %v %+v", err, evs)
	}
	var conn map[string]any
	if err := json.Unmarshal(evs[0].Data, &conn); err != nil || conn["host"] != "127.0.0.1" || conn["addr"] != allowed.String() || conn["verdict"] != "failed" || conn["bytes_sent"] == nil || conn["allowance"] != allowed.String() {
		t.Fatalf("connection event: %v %s", err, evs[0].Data)
	}
	calls, _ := h.store.Events(runtime.EventQuery{Kind: EventKindToolCall, Tool: "terminal"})
	last := calls[len(calls)-1]
	if last.CallID != "net" || !strings.Contains(string(last.Data), `"network_connections":[{`) {
		t.Fatalf("the call's audit does not list its connection: %s", last.Data)
	}
	if !strings.Contains(out.Views.Card.Body, "sandbox: network") {
		t.Fatalf("the result card does not name the enforced mode: %q", out.Views.Card.Body)
	}

	// The guard would let `echo hi` run unasked; with network it asks.
	p = &recording{a: approval.AllowOnce}
	auto := h.autoTerminalTurn(t, p)
	auto.Sandbox = netCfg
	out = auto.Call(context.Background(), ToolCall{ID: "auto", Name: "terminal", Args: args("echo hi", true)})
	if len(p.reasons) != 1 || !out.OK() || !strings.Contains(out.Views.Card.Body, "sandbox: network") {
		t.Fatalf("asked %d times (want once), %s card %q", len(p.reasons), out.Status, out.Views.Card.Body)
	}

	// Denied: nothing runs, nothing connects.
	turn, _ = h.terminalTurn(t, &answer{a: approval.Deny})
	turn.Sandbox = netCfg
	out = turn.Call(context.Background(), ToolCall{ID: "deny", Name: "terminal", Args: args(viaProxy, true)})
	if out.OK() || accepted.Load() != 1 {
		t.Fatalf("a denied network call ran: %s, %d connections", out.Status, accepted.Load())
	}

	// A read-only session has no network to give.
	turn, _ = h.terminalTurn(t, &answer{a: approval.AllowOnce})
	turn.Sandbox = sandboxing.Config{Mode: sandbox.ReadOnly, Helper: helper}
	out = turn.Call(context.Background(), ToolCall{ID: "ro", Name: "terminal", Args: args(connect, true)})
	if out.OK() || !strings.Contains(out.Views.Model.String(), "read-only, which has no network") || accepted.Load() != 1 {
		t.Fatalf("read-only session: %s %s, %d connections", out.Status, out.Views.Model.String(), accepted.Load())
	}
}

// TestSessionApprovalNeverCoversNetwork: a command approved for the
// session offline asks again when it asks for the network, and a network
// call cannot be approved for the session.
func TestSessionApprovalNeverCoversNetwork(t *testing.T) {
	h := newHarness(t)
	p := &recording{a: approval.AllowSession}
	turn, _ := h.terminalTurn(t, p)
	turn.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: buildSandboxHelper(t)}
	call := func(id, args string) {
		t.Helper()
		if out := turn.Call(context.Background(), ToolCall{ID: id, Name: "terminal", Args: []byte(args)}); !out.OK() {
			t.Fatalf("%s: %s %s", id, out.Status, out.Views.Model.String())
		}
	}
	call("a", `{"command":"ls"}`)
	call("b", `{"command":"ls"}`)
	if len(p.reasons) != 1 {
		t.Fatalf("asked %d times for the same offline command, want once (session approval)", len(p.reasons))
	}
	call("c", `{"command":"ls","network":true}`)
	call("d", `{"command":"ls","network":true}`)
	if len(p.reasons) != 3 {
		t.Fatalf("asked %d times in all, want 3: every network call asks", len(p.reasons))
	}
}
