package mcpserve

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// quickTask makes one task of a call that ends at once, past the running
// bound's refusals, and returns the refusal that is not that one ("" when
// the task was made).
func quickTask(t *testing.T, c *client.Client) string {
	t.Helper()
	for {
		resp := sendTask(t, c, "read_file", map[string]any{"path": "missing"}, nil)
		if resp.Error == nil {
			return ""
		}
		if !strings.Contains(resp.Error.Message, "max concurrent tasks") {
			return resp.Error.Message
		}
	}
}

// TestKeptTasksAreBounded: mcp-go keeps a finished task (its result and a
// goroutine) until its ttl ends, and the running bound does not count it:
// a client making quick tasks in a loop grew the server without bound.
// Past MaxKeptTasksPerSession a session's task is refused, saying why and
// what to do, while another session still makes its own; past
// MaxKeptTasks the server's is refused, for a new session too.
func TestKeptTasksAreBounded(t *testing.T) {
	s := serve(t, serveOpts{})
	var clients []*client.Client
	for range MaxKeptTasks/MaxKeptTasksPerSession + 1 {
		clients = append(clients, connect(t, s, mcp.ProtocolVersion20251125, nil))
	}
	for i := range MaxKeptTasksPerSession {
		if msg := quickTask(t, clients[0]); msg != "" {
			t.Fatalf("task %d of the first session refused: %s", i, msg)
		}
	}
	if msg := quickTask(t, clients[0]); !strings.Contains(msg, "too many MCP tasks are kept") || !strings.Contains(msg, "shorter ttl") {
		t.Fatalf("a task past the session's bound: %q", msg)
	}
	for _, c := range clients[1 : len(clients)-1] {
		for i := range MaxKeptTasksPerSession {
			if msg := quickTask(t, c); msg != "" {
				t.Fatalf("task %d of another session refused: %s", i, msg)
			}
		}
	}
	if msg := quickTask(t, clients[len(clients)-1]); !strings.Contains(msg, "too many MCP tasks are kept") {
		t.Fatalf("a task past the server's bound: %q", msg)
	}
}
