package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
)

// TestCallTimeoutCancelsTheRequest: a server that never answers holds a
// call no longer than the host's call timeout (the operator's, not the
// core's): the request is cancelled at the server and the call fails with
// a message naming the timeout. The server is told the request's deadline
// passed ("context deadline exceeded", as context.WithTimeoutCause's
// context said), not that it was cancelled: it can tell the two apart.
func TestCallTimeoutCancelsTheRequest(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.CallTimeout = 300 * time.Millisecond })
	marker := filepath.Join(t.TempDir(), "marker")
	reason := filepath.Join(t.TempDir(), "reason")
	f.server("slow", "never_returns", "env: {MARKER_AT: "+marker+", REASON_AT: "+reason+"}\n")
	f.ask.allow(ConnectTool("slow"))
	turn := f.dispatchTurn(f.resolve(), "slow__wait")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	out := turn.Call(ctx, dispatch.ToolCall{Name: "slow__wait", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(unwrapped(out.Views.Model.String()), "within the host's call timeout of 300ms") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the call took %s", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(marker); err == nil && string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the request cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The reason is written before the server reads the notification.
	if b, err := os.ReadFile(reason); err != nil || string(b) != context.DeadlineExceeded.Error() {
		t.Fatalf("the server was told %q (%v), not that the deadline passed", b, err)
	}
}

// TestCallOnAConnectionClosedAfterItsCheck: a call that passed the
// adapter's alive check just before the connection closed (its deadlines
// stopped) fails at once as a call to a disconnected server, not as a
// cancelled one, and arms no timer that would hold the connection.
func TestCallOnAConnectionClosedAfterItsCheck(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	c := f.pool.conns["echo"].c
	c.deadlines.stop() // the close's last step, while alive() still says yes
	turn := f.dispatchTurn(r, "echo__echo")
	start := time.Now()
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__echo", Args: []byte(`{"text":"hi"}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(unwrapped(out.Views.Model.String()), "MCP server echo is disconnected") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the call took %s", took)
	}
	c.deadlines.mu.Lock()
	defer c.deadlines.mu.Unlock()
	if !c.deadlines.armed.IsZero() || len(c.deadlines.pending) != 0 {
		t.Fatalf("armed %v, %d calls pending", c.deadlines.armed, len(c.deadlines.pending))
	}
}
