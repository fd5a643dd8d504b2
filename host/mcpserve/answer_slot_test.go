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

// answersCorpus are bodies whose answersAtOnce decision must be the full
// decode's: batches, the keys nested, escaped, repeated, in other cases
// and spellings, of other types, whitespace, invalid JSON.
var answersCorpus = []string{
	`{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`,
	`{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
	` { "jsonrpc" : "2.0" ,` + "\n\t\r" + ` "id" : 1 , "result" : { } } ` + "\n",
	`{"\u006dethod":"tools/call","id":1}`,
	`{"\u0069d":1,"result":{}}`,
	`{"\u0069d":1,"method":"x"}`,
	`{"me\u0074hod":"x"}`,
	`{"method":"\u0000"}`,
	`{"method":"\"","id":null}`,
	`{"id":1,"result":{"method":"tools/call"}}`,
	`{"method":"notifications/x","params":{"id":1}}`,
	`{"result":{"id":1},"params":["id",{"method":"x"}]}`,
	`{"id":[1,{"method":"x"},"}"],"result":"]"}`,
	`{"ID":1,"method":"tools/call"}`, `{"Id":1,"result":1}`, `{"iD":1}`,
	`{"METHOD":"x"}`, `{"Method":"x","id":1}`, `{"mEtHoD":"x"}`,
	`{"ſd":1}`, `{"ıd":1}`, `{"İd":1}`, `{"id ":1}`, `{" id":1}`, `{"i":1}`, `{"idd":1}`,
	`{"method":"x","id":1,"method":"y"}`,
	`{"method":"x","method":null}`,
	`{"method":null,"method":"x"}`,
	`{"method":"x","method":""}`,
	`{"method":"","method":"x"}`,
	`{"id":1,"id":null}`, `{"id":null}`, `{"id":null,"result":{}}`,
	`{"method":null}`, `{"method":null,"id":1}`,
	`{"method":1}`, `{"method":true,"id":1}`, `{"method":{"a":1},"id":1}`, `{"method":["x"]}`,
	`{"id":1,"result":{},"method":null}`,
	`{"method":"x","id":1,"method":5}`,
	`{"method":"é"}`, `{"method":"` + "\xff" + `"}`, `{"` + "\xff" + `":1,"id":1}`,
	`{"id":1e400}`, `{"id":-0.5e-3,"result":true}`, `{"id":true}`, `{"id":"\u00e9"}`,
	`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	`[{"id":1,"result":{}},{"id":2,"result":{}}]`, `[]`, `[1]`,
	`{"jsonrpc":"2.0"}`, `{}`, `null`, `1`, `"id"`, `true`, ``, ` `,
	`not json`, `{"id":1,"result":}`, `{"id":1,}`, `{"id":1`, `{"id":1}}`, `{"id":1} {}`,
	`{"id":1,"result":{}}x`, `{"method":"x"`, `{"method":"x\"}`, `{"id":01}`, `{'id':1}`,
	`{"a":"\\","id":1}`, `{"a":"\\\"","method":"x"}`, `{"a":"}","method":"x"}`,
	`{"a":[[[[[]]]]],"method":"x"}`, `{"a":{"b":{"id":1}},"method":"n"}`,
}

// TestAnswersAtOnceIsTheDecoders: the look at the top-level keys decides
// as the full decode does, on every shape of answersCorpus.
func TestAnswersAtOnceIsTheDecoders(t *testing.T) {
	for _, body := range answersCorpus {
		if got, want := answersAtOnce([]byte(body)), answersAtOnceDecoded([]byte(body)); got != want {
			t.Errorf("%q: %v, the decoder says %v", body, got, want)
		}
	}
}

// FuzzAnswersAtOnce: the same, on any body.
func FuzzAnswersAtOnce(f *testing.F) {
	for _, body := range answersCorpus {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := answersAtOnce(body), answersAtOnceDecoded(body); got != want {
			t.Errorf("%q: %v, the decoder says %v", body, got, want)
		}
	})
}
