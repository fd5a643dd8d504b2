package mcpserve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"demiurge.dev/catalog/jsonscan"
)

// DefaultMaxStdioRequests bounds the requests other than tools/call that
// a stdio client has in progress at once (Options.MaxStdioRequests).
const DefaultMaxStdioRequests = 32

// requestGate bounds what mcp-go's stdio server would not: it serves
// each request other than tools/call on a goroutine of its own, with no
// bound (tools/call goes to its worker pool, and when that is full, is
// served in the read loop itself). The gate reads each whole line before
// mcp-go does and each message it writes: a request admitted is in
// progress until the response with its id is written; one past max is
// answered at once with a "server busy" error and never reaches mcp-go.
// Refusing rather than holding the line keeps the read loop going, so a
// client's answers to elicitations and its cancellations still arrive
// while its requests wait.
//
// Closed world: a line is handed on when it is a response (an id and no
// method), a notification, tools/call, or something mcp-go answers in
// its read loop (not an object, a method that is not a string); a request
// whose id is neither a string nor a number mcp-go can hold, or that also
// carries a result or an error (which mcp-go would take as a response and
// never answer), is refused here.
type requestGate struct {
	max int
	mu  sync.Mutex
	n   int
	ids map[string]int // the canonical ids of the requests in progress
}

func newRequestGate(max int) *requestGate {
	return &requestGate{max: max, ids: map[string]int{}}
}

// message is what the gate reads of a line, as mcp-go's read loop decodes
// it (encoding/json: the last of repeated keys, keys matched without
// regard to case).
type message struct {
	Method *string         `json:"method"`
	ID     json.RawMessage `json:"id"`
	Result present         `json:"result"`
	Error  present         `json:"error"`
}

// present records that a member is there, whatever its value (null
// included), without keeping a copy of it.
type present bool

func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

// admit says whether line goes on to mcp-go; when not, answer is what the
// client is told instead.
func (g *requestGate) admit(line []byte) (ok bool, answer []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return true, nil // not an object or a method of another type: answered in the read loop
	}
	if m.Method == nil || *m.Method == "" || noID(m.ID) || *m.Method == "tools/call" {
		return true, nil
	}
	id, ok := canonicalID(m.ID)
	if !ok || bool(m.Result) || bool(m.Error) {
		return false, rpcError(nil, -32600, "invalid request: a request's id is a string or a number, and it carries no result or error")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n >= g.max {
		return false, rpcError(m.ID, -32000, fmt.Sprintf("server busy: %d requests are in progress; send this again once one is answered", g.n))
	}
	g.n++
	g.ids[id]++
	return true, nil
}

// written sees a message the server writes: a response ends the request
// of its id.
func (g *requestGate) written(msg []byte) {
	g.mu.Lock()
	idle := g.n == 0
	g.mu.Unlock()
	if idle {
		return // nothing to end: a tools/list answer is not read twice
	}
	raw, ok := responseID(msg)
	if !ok {
		return
	}
	id, ok := canonicalID(raw)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.ids[id]; c > 0 {
		g.n--
		if c == 1 {
			delete(g.ids, id)
		} else {
			g.ids[id] = c - 1
		}
	}
}

// inProgress is how many admitted requests are not answered yet.
func (g *requestGate) inProgress() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// responseID is the id of a response the server writes (an id and no
// method), read from its top-level keys without decoding the rest: a
// tools/list answer is large, and decoding it again cost three times
// what marshalling it did (2 ms for 91 KB; 0.2 ms skipped over with
// jsonscan; nothing once the id is read before the result). msg is json.Marshal's output (mcp-go's
// messages), so its keys are written as they are named, unescaped.
func responseID(msg []byte) (json.RawMessage, bool) {
	s := jsonscan.Scan{B: msg}
	if !s.Next('{') {
		return nil, false
	}
	var id []byte
	for !s.Next('}') {
		s.Next(',')
		key, _, ok := s.String()
		if !ok || !s.Next(':') {
			return nil, false
		}
		if id != nil && (string(key) == "result" || string(key) == "error") {
			// A response (mcp-go writes the id before the result): the
			// result, a whole tools/list perhaps, need not be read.
			return id, !noID(id)
		}
		s.Space()
		start := s.I
		s.Skip()
		switch string(key) {
		case "id":
			id = msg[start:s.I]
		case "method":
			if string(msg[start:s.I]) != "null" {
				return nil, false // a request of the server's (elicitation, ping)
			}
		}
	}
	return id, !noID(id)
}

func noID(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// canonicalID is an id as mcp-go holds it (mcp.RequestId: a string, or a
// number read as a float64) and writes it back, so that a request and its
// response meet whatever the spelling (1 and 1.0, "\u0041" and "A").
func canonicalID(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return "s" + x, true
	case float64:
		return "n" + strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

// rpcError is a JSON-RPC error line; a nil id is written as null.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}

// testHookStdioGate, when set, is handed each stdio server's gate.
var testHookStdioGate func(*requestGate)
