package mcpserve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestAnAnswerIsNeverRefusedForTheCallItAnswers: a client's answer to the
// server's elicitation (a JSON-RPC response, POSTed) reaches the call that
// asked even when that call holds the last place for requests in
// progress: refused 503, it left the call waiting until the approval
// timed out, and denied.
func TestAnAnswerIsNeverRefusedForTheCallItAnswers(t *testing.T) {
	s := serve(t, serveOpts{http: HTTPOptions{MaxConcurrent: 1}})
	ans := &answerer{decision: decisionOnce}
	cl := connect(t, s, mcp.ProtocolVersion20251125, ans)
	res := call(t, cl, "write_file", map[string]any{"path": "answered", "content": "x\n"})
	if ans.asked.Load() != 1 {
		t.Fatalf("asked %d times", ans.asked.Load())
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "answered")); err != nil || res.IsError {
		t.Fatalf("the approved call did not run: %v %q", err, text(res))
	}
}

// TestOnlyAnswersAndNoticesTakeTheReplyPlaces: closed world over the
// shapes that may use the places kept for messages answered at once; a
// request in any spelling (the decoder matches keys case-insensitively,
// the last of a repeated key counts) is not one of them.
func TestOnlyAnswersAndNoticesTakeTheReplyPlaces(t *testing.T) {
	cases := []struct {
		body string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`, true},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, false},
		{`{"jsonrpc":"2.0","ID":1,"method":"tools/call"}`, false},
		{`{"jsonrpc":"2.0","method":"tools/call","id":null}`, false},
		{`{"jsonrpc":"2.0","Method":"tools/call","id":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, false},
		{`{"jsonrpc":"2.0","method":"x","id":1,"method":"y"}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{},"method":null}`, true},
		{`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, false},
		{`{"jsonrpc":"2.0"}`, false},
		{`not json`, false},
	}
	for _, c := range cases {
		if got := answersAtOnce([]byte(c.body)); got != c.ok {
			t.Errorf("%s: %v, want %v", c.body, got, c.ok)
		}
	}
}
