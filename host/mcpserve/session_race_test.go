package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// endedSession is the client session of an id, as mcp-go hands a request's
// handler the session it looked up.
type endedSession struct{ id string }

func (endedSession) Initialize()                                         {}
func (endedSession) Initialized() bool                                   { return true }
func (endedSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (e endedSession) SessionID() string                                 { return e.id }

// TestACallAfterItsSessionEndedMakesNoSession: a call whose session ended
// (DELETE, the idle sweep) between mcp-go's look-up of its id and the
// handler's made a toolhost session that nobody ended, kept with whatever
// it held (its MCP servers' connections) until the server closed. The
// handler's look-up happens after the end: it is refused.
func TestACallAfterItsSessionEndedMakesNoSession(t *testing.T) {
	s := serve(t, serveOpts{})
	r := initialized(t, s)
	endSession(t, s, r.session)
	ctx := s.Srv.mcp.WithContext(context.Background(), endedSession{r.session})
	ctx = context.WithValue(ctx, noticeKey{}, newNoticeCounter()) // over HTTP
	if _, err := s.Srv.sessionFor(ctx); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Fatalf("a call of an ended session: %v", err)
	}
	s.Srv.mu.Lock()
	defer s.Srv.mu.Unlock()
	if len(s.Srv.clients) != 0 {
		t.Fatalf("%d sessions made for ended MCP sessions", len(s.Srv.clients))
	}
}

// TestCallsRacingTheirSessionsEndLeaveNoSession is the same race on the
// wire: a tools/call and the DELETE of its session sent together, 300
// times (main left 11 toolhost sessions behind).
func TestCallsRacingTheirSessionsEndLeaveNoSession(t *testing.T) {
	s := serve(t, serveOpts{})
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "tools/call",
		"params": map[string]any{"name": "read_file", "arguments": map[string]any{"path": "x"}}})
	for range 300 {
		r := initialized(t, s)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); r.post(call) }()
		go func() { defer wg.Done(); endSession(t, s, r.session) }()
		wg.Wait()
	}
	s.Srv.mu.Lock()
	defer s.Srv.mu.Unlock()
	if len(s.Srv.clients) != 0 {
		t.Fatalf("%d toolhost sessions left of ended MCP sessions", len(s.Srv.clients))
	}
}
