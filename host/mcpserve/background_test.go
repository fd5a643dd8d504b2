package mcpserve

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

var taskID = regexp.MustCompile(`task_[0-9a-f]+`)

// TestBackgroundTaskOverMCP: a background terminal call answers at once
// with its task id; the task tools follow it in that client's session,
// and another client's session does not see it.
func TestBackgroundTaskOverMCP(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	a := connect(t, s, mcp.ProtocolVersion20251125, nil)
	start := time.Now()
	res := call(t, a, "terminal", map[string]any{"command": "sleep 0.3; echo bg-done", "background": true})
	id := taskID.FindString(text(res))
	if res.IsError || id == "" {
		t.Fatalf("%q", text(res))
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("the background call took %s to answer", time.Since(start))
	}
	res = call(t, a, "yield_until", map[string]any{"task_id": id, "timeout_seconds": 30})
	if res.IsError {
		t.Fatalf("yield_until: %q", text(res))
	}
	res = call(t, a, "task_status", map[string]any{"task_id": id})
	if res.IsError || !strings.Contains(text(res), "succeeded") {
		t.Fatalf("task_status: %q", text(res))
	}
	b := connect(t, s, mcp.ProtocolVersion20251125, nil)
	res = call(t, b, "task_status", map[string]any{"task_id": id})
	if strings.Contains(text(res), "succeeded") {
		t.Fatalf("another client's session sees the task: %q", text(res))
	}
}
