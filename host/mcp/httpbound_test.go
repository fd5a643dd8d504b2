package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// rpcReply writes the answer to one request of the test server; method is
// the request's, id its JSON-RPC id, args its tools/call arguments.
type rpcReply func(w http.ResponseWriter, method string, id json.RawMessage, args json.RawMessage)

// boundServer is a real streamable HTTP MCP server on loopback, written by
// hand so that its replies can be streamed at any size: initialize and
// notifications are answered here, every other request by reply.
func boundServer(t *testing.T, reply rpcReply) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
		case http.MethodDelete:
			return
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Arguments       json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"bound-test","version":"1"}}}`,
				m.ID, m.Params.ProtocolVersion)
		default:
			reply(w, m.Method, m.ID, m.Params.Arguments)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// toolsResult is a tools/list result with one tool, echo.
const toolsResult = `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`

// callResult is a tools/call result saying ok.
const callResult = `{"content":[{"type":"text","text":"ok"}]}`

// writePad streams n bytes of 'x' without holding them: it stops when the
// client goes away.
func writePad(w io.Writer, n int64) error {
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for n > 0 {
		c := chunk[:min(int64(len(chunk)), n)]
		if _, err := w.Write(c); err != nil {
			return err
		}
		n -= int64(len(c))
	}
	return nil
}

// jsonReply answers with application/json; a positive pad streams that
// many bytes of padding inside the result, so the message is that large.
func jsonReply(result string, pad int64, announce bool) rpcReply {
	return func(w http.ResponseWriter, _ string, id, _ json.RawMessage) {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"pad":"`, id)
		rest := `",` + result[1:] + "}"
		w.Header().Set("Content-Type", "application/json")
		if announce {
			w.Header().Set("Content-Length", strconv.FormatInt(int64(len(head))+pad+int64(len(rest)), 10))
		}
		io.WriteString(w, head)
		if writePad(w, pad) == nil {
			io.WriteString(w, rest)
		}
	}
}

// sseReply answers with text/event-stream: before the answer, events
// notifications of size bytes each (their separators alternating "\n\n"
// and "\r\n\r\n"), then the answer as one event whose data line carries
// pad bytes of padding (or, with a lineSize, pad bytes of data lines of
// that size).
func sseReply(result string, events, size int, pad int64, lineSize int) rpcReply {
	return func(w http.ResponseWriter, _ string, id, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/event-stream")
		note := fmt.Sprintf(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"%s"}}`, strings.Repeat("n", size))
		for i := range events {
			sep := "\n\n"
			if i%2 == 1 {
				sep = "\r\n\r\n"
			}
			if _, err := io.WriteString(w, note+sep); err != nil {
				return
			}
		}
		head := fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"result":{"pad":"`, id)
		rest := `",` + result[1:] + "}\n\n"
		if lineSize > 0 {
			// The padding as data lines of their own after the answer's.
			head = `data: {"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + "}\n"
			line := []byte("data: " + strings.Repeat("y", lineSize) + "\n")
			for sent := int64(0); sent < pad; sent += int64(len(line)) {
				if sent == 0 {
					io.WriteString(w, head)
				}
				if _, err := w.Write(line); err != nil {
					return
				}
			}
			io.WriteString(w, "\n")
			return
		}
		io.WriteString(w, head)
		if writePad(w, pad) == nil {
			io.WriteString(w, rest)
		}
	}
}

// boundFixture is a fixture whose URL policy lets loopback through, and
// a manifest for server id at url.
func boundFixture(t *testing.T, id, url string) *fixture {
	t.Helper()
	f := newFixture(t, func(c *Config) { c.Net = netpolicy.Options{AllowLoopbackForTests: true} })
	// A connect timeout far above what reading 20 MB of small events
	// takes: these tests are of the size bounds, and under -race beside
	// other packages 20 s ran out first (CI, stop 56).
	mcptest.Manifest(t, f.mcpDir, id, "url: "+url+"\nconnect_timeout_seconds: 120\n")
	f.ask.allow(ConnectTool(id))
	return f
}

// TestHTTPMessageBound: discovery over streamable HTTP against replies of
// every shape around MaxMessageBytes. Too large a JSON body or SSE event
// fails the server with a diagnostic naming it and the bound, negatively
// cached like any failure; a stream of small events that adds up to more
// than the bound, and a normal reply, connect.
func TestHTTPMessageBound(t *testing.T) {
	const over = MaxMessageBytes + 1<<20
	for _, tc := range []struct {
		name  string
		reply rpcReply
		ok    bool
		what  string
	}{
		{"json normal", jsonReply(toolsResult, 0, false), true, ""},
		{"json just under", jsonReply(toolsResult, MaxMessageBytes-1024, false), true, ""},
		{"json streamed over", jsonReply(toolsResult, over, false), false, "a response body of more than 16 MiB (the host's bound on one message, MaxMessageBytes)"},
		{"json announced over", jsonReply(toolsResult, over, true), false, "a response body of more than 16 MiB"},
		{"sse normal", sseReply(toolsResult, 0, 0, 0, 0), true, ""},
		{"sse many small events", sseReply(toolsResult, 20<<10, 1000, 0, 0), true, ""},
		{"sse one event too large", sseReply(toolsResult, 3, 100, over, 0), false, "one server-sent event of more than 16 MiB"},
		{"sse one event of long data lines", sseReply(toolsResult, 0, 0, over, 256<<10), false, "one server-sent event of more than 16 MiB"},
		{"sse one event of many short data lines", sseReply(toolsResult, 0, 0, 8<<20, 1000), false, "one server-sent event split into so many data lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := boundFixture(t, "big", boundServer(t, func(w http.ResponseWriter, method string, id, args json.RawMessage) {
				if method != "tools/list" {
					http.Error(w, "unexpected "+method, http.StatusBadRequest)
					return
				}
				tc.reply(w, method, id, args)
			}))
			st := state(t, f.resolve(), "big")
			if tc.ok {
				if st.Status != StatusConnected || len(st.Tools) != 1 || st.Tools[0] != "big__echo" {
					t.Fatalf("%s: %s (%+v)", st.Status, st.Diagnostic, st)
				}
				return
			}
			t.Logf("diagnostic: %s", st.Diagnostic)
			if st.Status != StatusFailed || st.RetryAt.IsZero() {
				t.Fatalf("not a cached failure: %+v", st)
			}
			for _, want := range []string{"tools/list", `MCP server "big" sent ` + tc.what} {
				if !strings.Contains(st.Diagnostic, want) {
					t.Fatalf("diagnostic lacks %q: %s", want, st.Diagnostic)
				}
			}
			if len(st.Diagnostic) > 1024 {
				t.Fatalf("diagnostic of %d bytes", len(st.Diagnostic))
			}
		})
	}
}

// TestHTTPMessageBoundHeap: a tools/list reply of 256 MiB, as a JSON body
// or as one SSE event, fails while the host's heap grows by a small
// multiple of the bound at most (what mcp-go buffers up to it), far below
// the reply's size: nothing buffers the body past the bound.
func TestHTTPMessageBoundHeap(t *testing.T) {
	const body = 256 << 20
	for _, tc := range []struct {
		name  string
		reply rpcReply
	}{
		{"json", jsonReply(toolsResult, body, false)},
		{"sse", sseReply(toolsResult, 0, 0, body, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := boundFixture(t, "huge", boundServer(t, tc.reply))
			var st State
			grown := peakHeapGrowth(func() { st = state(t, f.resolve(), "huge") })
			t.Logf("heap in use grew by at most %.1f MiB while a %d MiB reply was refused", float64(grown)/(1<<20), body>>20)
			if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "more than 16 MiB") {
				t.Fatalf("%s: %s (%+v)", st.Status, st.Diagnostic, st)
			}
			if grown > 6*MaxMessageBytes {
				t.Fatalf("heap grew by %d bytes for a %d byte reply", grown, body)
			}
		})
	}
}

// peakHeapGrowth runs fn and returns the most the heap in use grew above
// its level before, sampled every 2 ms.
func peakHeapGrowth(fn func()) int64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		top := base.HeapInuse
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				peak <- top
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
			}
		}
	}()
	fn()
	close(done)
	return int64(<-peak) - int64(base.HeapInuse)
}

// TestHTTPErrorReplyBound: a failure status with 64 MiB of body fails
// discovery with a diagnostic that carries at most maxErrorBody of it
// (mcp-go puts the body it read into the error).
func TestHTTPErrorReplyBound(t *testing.T) {
	f := boundFixture(t, "broken", boundServer(t, func(w http.ResponseWriter, method string, id, args json.RawMessage) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		writePad(w, 64<<20)
	}))
	st := state(t, f.resolve(), "broken")
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "status 500") || !strings.Contains(st.Diagnostic, "xxxx") {
		t.Fatalf("%.300s", st.Diagnostic)
	}
	if len(st.Diagnostic) > maxErrorBody+512 {
		t.Fatalf("diagnostic of %d bytes", len(st.Diagnostic))
	}
}

// TestHTTPCallBound: a tool call whose reply is one SSE event past the
// bound fails with the diagnostic; the connection stays, and the next
// call with a normal reply works.
func TestHTTPCallBound(t *testing.T) {
	f := boundFixture(t, "web", boundServer(t, func(w http.ResponseWriter, method string, id, args json.RawMessage) {
		switch {
		case method == "tools/list":
			jsonReply(toolsResult, 0, false)(w, method, id, args)
		case method == "tools/call" && bytes.Contains(args, []byte("big")):
			sseReply(callResult, 2, 10, MaxMessageBytes+1, 0)(w, method, id, args)
		default:
			sseReply(callResult, 0, 0, 0, 0)(w, method, id, args)
		}
	}))
	r := f.resolve()
	if st := state(t, r, "web"); st.Status != StatusConnected {
		t.Fatalf("%s: %s (%+v)", st.Status, st.Diagnostic, st)
	}
	turn := f.dispatchTurn(r, "web__echo")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "web__echo", Args: []byte(`{"text":"big"}`)})
	if out.OK() || !strings.Contains(unwrapped(out.Views.Model.String()), "more than 16 MiB") || !strings.Contains(unwrapped(out.Views.Model.String()), "one server-sent event") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	out = turn.Call(context.Background(), dispatch.ToolCall{Name: "web__echo", Args: []byte(`{"text":"small"}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "ok" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

// TestBoundBody reads bodies through the bound directly, with a small
// limit: what is delivered, where it fails, and the synthesized ending of
// an event stream.
func TestBoundBody(t *testing.T) {
	const limit = 10
	post := func(body string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, "http://example.test/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	withID := post(`{"jsonrpc":"2.0","id":"req-7","method":"tools/list"}`)
	for _, tc := range []struct {
		name   string
		sse    bool
		req    *http.Request
		body   string
		length int64 // announced Content-Length; -1 unknown
		join   int64 // the bound on joining data lines; 0 is 3*limit
		status int   // 0 is 200
		want   string
		what   string // the start of the diagnostic; "" when it succeeds
	}{
		{"json at the bound", false, withID, "0123456789", -1, 0, 0, "0123456789", ""},
		{"json past the bound", false, withID, "0123456789A", -1, 0, 0, "0123456789", "a response body of more than"},
		{"json announced past the bound", false, withID, "0123456789A", 11, 0, 0, "", "a response body of more than"},
		{"sse events under the bound", true, withID, "data: 1\n\ndata:2\r\n\r\ndata: 3\n\n", -1, 0, 0, "data: 1\n\ndata:2\r\n\r\ndata: 3\n\n", ""},
		{"sse event past the bound", true, withID, "data: 1\n\ndata: 23456", -1, 0, 0,
			"data: 1\n\ndata: 2345:\ndata:\x00\n\ndata: " + `{"error":{"code":-32000,"message":"MSG"},"id":"req-7","jsonrpc":"2.0"}` + "\n\n", "one server-sent event of more than"},
		{"sse lines of one event", true, withID, "a\nb\nc\nd\ne\nf\n", -1, 0, 0,
			"a\nb\nc\nd\ne\n:\ndata:\x00\n\ndata: " + `{"error":{"code":-32000,"message":"MSG"},"id":"req-7","jsonrpc":"2.0"}` + "\n\n", "one server-sent event of more than"},
		{"sse data lines past the join bound", true, withID, "x\ndata:\n\n", -1, 5, 0,
			"x\ndata::\ndata:\x00\n\ndata: " + `{"error":{"code":-32000,"message":"MSG"},"id":"req-7","jsonrpc":"2.0"}` + "\n\n", "one server-sent event split into so many data lines"},
		{"sse other lines are not joined", true, withID, "event:x\n\n", -1, 5, 0, "event:x\n\n", ""},
		{"sse past the bound, no request id", true, post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "0123456789AB", -1, 0, 0, "0123456789", "one server-sent event of more than"},
		{"sse announced length is no limit", true, withID, "data: 1\n\ndata: 2\n\n", 1 << 40, 0, 0, "data: 1\n\ndata: 2\n\n", ""},
		{"error reply past its bound", false, withID, "0123456789A", -1, 0, 500, "0123456789", "an error reply (status 500) of more than 10 bytes (the host's bound on an error reply)"},
		{"sse error reply is bounded whole", true, withID, "data: 1\n\n\n\n\n", -1, 0, 503, "data: 1\n\n\n", "an error reply (status 503) of more than 10 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			join := cmp.Or(tc.join, 3*limit)
			bt := &boundTransport{server: "srv", limit: limit, joinLimit: join, inner: roundTripFunc(func(*http.Request) (*http.Response, error) {
				h := http.Header{}
				h.Set("Content-Type", "application/json")
				if tc.sse {
					h.Set("Content-Type", "text/event-stream; charset=utf-8")
				}
				return &http.Response{StatusCode: cmp.Or(tc.status, 200), Header: h, ContentLength: tc.length, Body: io.NopCloser(iotestOneByte(tc.body))}, nil
			})}
			resp, err := bt.RoundTrip(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			fails := tc.what != ""
			var be *boundError
			if fails != errors.As(err, &be) {
				t.Fatalf("error %v, want failure %v", err, fails)
			}
			want := tc.want
			if fails {
				js, _ := json.Marshal(err.Error())
				want = strings.ReplaceAll(want, `"MSG"`, string(js))
				if !strings.Contains(err.Error(), `MCP server "srv" sent `+tc.what) {
					t.Fatalf("%v", err)
				}
			}
			if string(got) != want {
				t.Fatalf("read %q\nwant %q", got, want)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// iotestOneByte reads s a byte at a time, so every position is a chunk
// boundary.
func iotestOneByte(s string) io.Reader { return &oneByte{s: s} }

type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}

// TestEventRun: where the event counter trips, table by table.
func TestEventRun(t *testing.T) {
	for _, tc := range []struct {
		in          string
		limit, join int64
		want        int
		lines       bool
	}{
		{"", 4, 100, -1, false},
		{"abcd", 4, 100, -1, false},
		{"abcde", 4, 100, 4, false},
		{"ab\n\nab\n\nab\n\n", 4, 100, -1, false},
		{"ab\r\n\r\nab\r\n\r\n", 6, 100, -1, false},
		{"ab\r\n\r\nab\r\n\r\n", 5, 100, 5, false},        // the blank line counts in its event
		{"a\nb\nc\n", 4, 100, 4, false},                   // lines without a blank one are one event
		{"a\r\rb\n", 3, 100, 3, false},                    // a lone "\r" ends nothing
		{"\r\r\r\n\r\r\r\n", 4, 100, -1, false},           // a line of "\r" only is blank
		{"x\n\r\r\r\r\r\n", 4, 100, 4, false},             // but counts until its "\n"
		{strings.Repeat("a\n\n", 100), 3, 100, -1, false}, // many small events
		// Joining data lines: each data line's end adds the event so far.
		{"data:1\ndata:2\ndata:3\n\n", 100, 42, -1, false},   // 7 + 14 + 21
		{"data:1\ndata:2\ndata:3\n\n", 100, 41, 20, true},    // passes 41 on the third line's end
		{"data:1\ndata:2\ndata:3\n\n", 100, 20, 13, true},    // or 20 on the second's
		{"data:1\ndata:2\n\ndata:3\n\n", 100, 21, -1, false}, // a blank line starts again
		{"event:1\nid:2\n: data:3\n data:\n\n", 100, 1, -1, false},
		{"\rdata:1\n\n", 100, 1, -1, false}, // not a data line to mcp-go either
	} {
		r := eventRun{limit: tc.limit, joinLimit: tc.join}
		if got, lines := r.feed([]byte(tc.in)); got != tc.want || lines != tc.lines {
			t.Errorf("feed(%q, %d, %d) = %d %v, want %d %v", tc.in, tc.limit, tc.join, got, lines, tc.want, tc.lines)
		}
	}
}

// refTrip is the event counter's reference, from mcp-go's reading: the
// stream cut into lines; an event ends on a line that TrimRight(line,
// "\r\n") leaves empty; a line whose trimmed text starts "data:" is
// appended to the event's data, which costs the event so far.
func refTrip(data []byte, limit, join int64) (int, bool) {
	var n, joined int64
	start := 0
	for i := range data {
		n++
		if n > limit {
			return i, false
		}
		if data[i] != '\n' {
			continue
		}
		line := strings.TrimRight(string(data[start:i+1]), "\r\n")
		start = i + 1
		switch {
		case line == "":
			n, joined = 0, 0
		case strings.HasPrefix(line, "data:"):
			if joined += n; joined > join {
				return i, true
			}
		}
	}
	return -1, false
}

// FuzzEventRun: fed in any chunks, the counter trips where the reference
// does, for the same reason.
func FuzzEventRun(f *testing.F) {
	f.Add([]byte("data: 1\n\ndata: 2\r\n\r\n"), []byte{3, 1}, uint8(6), uint8(20))
	f.Add([]byte("a\r\rb\n\r\n\n"), []byte{1}, uint8(2), uint8(2))
	f.Add([]byte("\r\r\r\n\r\n\n\r"), []byte{2, 5}, uint8(1), uint8(1))
	f.Add([]byte("event: x\nid: 1\ndata: {}\n\n"), []byte{}, uint8(9), uint8(9))
	f.Add([]byte("data:1\ndata:2\ndata:3\n\ndat\ra:\n"), []byte{4, 4, 2}, uint8(30), uint8(20))
	f.Fuzz(func(t *testing.T, data, cuts []byte, lim, joinLim uint8) {
		limit, join := int64(lim%32)+1, int64(joinLim%64)+1
		want, wantLines := refTrip(data, limit, join)
		r := eventRun{limit: limit, joinLimit: join}
		got, lines, off := -1, false, 0
		for k := 0; off < len(data); k++ {
			size := len(data) - off
			if k < len(cuts) {
				size = min(size, int(cuts[k])%8+1)
			}
			if i, l := r.feed(data[off : off+size]); i >= 0 {
				got, lines = off+i, l
				break
			}
			off += size
		}
		if got != want || lines != wantLines {
			t.Fatalf("tripped at %d (lines %v), reference at %d (lines %v), limits %d/%d, in %q", got, lines, want, wantLines, limit, join, data)
		}
	})
}
