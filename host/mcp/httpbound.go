package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxMessageBytes bounds one JSON-RPC message a server can make the host
// hold, on every transport: one line from a stdio server (MaxStdioLine),
// one application/json response body or one text/event-stream event from
// an HTTP server. mcp-go reads a JSON body whole and an SSE event whole
// before it looks at either, so past this bound the response is cut off
// and the request fails.
const MaxMessageBytes = 16 << 20

// maxEventJoin bounds the bytes mcp-go copies to join the data lines of
// one event: it appends each line to the event's data by copying all of
// it, so an event of many short lines costs the square of its size in
// CPU even within MaxMessageBytes. 1 GiB of copying is around a second.
const maxEventJoin = 64 * MaxMessageBytes

// maxErrorBody bounds the body of a reply whose status is not a success:
// mcp-go reads it whole and puts it in the request's error, which becomes
// the server's diagnostic, so it is an error page or a JSON-RPC error,
// never a message.
const maxErrorBody = 4 << 10

// boundTransport is the round tripper of one HTTP server's client: every
// response body it returns is read through a boundBody. It buffers
// nothing itself.
type boundTransport struct {
	inner     http.RoundTripper
	server    string
	limit     int64 // MaxMessageBytes
	joinLimit int64 // maxEventJoin
}

func (b *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.inner.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body := &boundBody{rc: resp.Body, req: req, server: b.server, limit: b.limit, sse: mt == "text/event-stream",
		what: "a response body", bound: "the host's bound on one message, MaxMessageBytes",
		run: eventRun{limit: b.limit, joinLimit: b.joinLimit}}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body.limit, body.sse = min(b.limit, maxErrorBody), false
		body.what = fmt.Sprintf("an error reply (status %d)", resp.StatusCode)
		body.bound = "the host's bound on an error reply"
	}
	// A body that announces its size past the bound fails before a byte
	// of it is read.
	if !body.sse && resp.ContentLength > body.limit {
		body.fail(body.tooLarge(body.what))
	}
	resp.Body = body
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections (a closed
// connection's cleanup) reach the pinned transport.
func (b *boundTransport) CloseIdleConnections() {
	if c, ok := b.inner.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// boundError is the diagnostic of a reply past a bound, for the operator
// (the server's state) and the model (a failed call) alike.
type boundError struct {
	server string
	what   string // what the server sent, and the bound it passed
	hint   string // what the server must do instead
}

func (e *boundError) Error() string {
	return fmt.Sprintf("MCP server %q sent %s; the request failed and the rest of the reply was dropped; %s", e.server, e.what, e.hint)
}

// boundBody counts what is read of one response body: the whole body, or
// for an event stream the bytes of the current event, so a long-lived
// stream of small events is never cut.
type boundBody struct {
	rc     io.ReadCloser
	req    *http.Request
	server string
	limit  int64
	sse    bool
	what   string // what the body is, for the diagnostic when not sse
	bound  string // which bound limit is, for the diagnostic

	total int64
	run   eventRun
	// err is set once a bound is passed: every later Read returns it.
	err error
	// tail is what is still to be delivered, after the bound, of the
	// ending synthesized for an event stream (see sseEnding).
	tail []byte
}

func (b *boundBody) Read(p []byte) (int, error) {
	if len(b.tail) > 0 {
		n := copy(p, b.tail)
		b.tail = b.tail[n:]
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if b.sse {
		i, lines := b.run.feed(p[:n])
		if i < 0 {
			return n, err
		}
		if lines {
			b.fail(&boundError{server: b.server,
				what: fmt.Sprintf("one server-sent event split into so many data lines that joining them would copy more than %d MiB", b.run.joinLimit>>20),
				hint: "each message must be one data line"})
		} else {
			b.fail(b.tooLarge("one server-sent event"))
		}
		b.tail = sseEnding(b.req, b.err)
		if i == 0 {
			return b.Read(p)
		}
		return i, nil
	}
	b.total += int64(n)
	if over := b.total - b.limit; over > 0 {
		b.fail(b.tooLarge(b.what))
		return n - int(over), b.err
	}
	return n, err
}

func (b *boundBody) tooLarge(what string) error {
	return &boundError{server: b.server,
		what: fmt.Sprintf("%s of more than %s (%s)", what, sizeText(b.limit), b.bound),
		hint: "the server must page or shorten its replies"}
}

// sizeText writes a bound in the largest unit that holds it whole.
func sizeText(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fail records why the body failed and closes the connection at once:
// the server stops sending and nothing more is read.
func (b *boundBody) fail(err error) {
	b.err = err
	_ = b.rc.Close()
}

func (b *boundBody) Close() error { return b.rc.Close() }

// sseEnding is what an event stream that passed the bound delivers before
// its error. mcp-go drops the read error of an event stream and fails the
// request with only "unexpected nil response", so the diagnostic travels
// as a JSON-RPC error answering the request instead. First the cut-off
// event is ended so that mcp-go drops it rather than take a truncated
// message for the answer: ":\n" ends the cut line as a line that is never
// blank (it may have been only "\r" so far), then a data line holding a
// NUL makes the event's data invalid JSON whatever was cut, and a blank
// line dispatches it. Without the request's id (a GET stream) there is
// nothing to answer, and the stream just fails.
func sseEnding(req *http.Request, cause error) []byte {
	id := requestID(req)
	if id == nil {
		return nil
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32000, "message": cause.Error()}})
	if err != nil {
		return nil
	}
	out := []byte(":\ndata:\x00\n\ndata: ")
	out = append(out, msg...)
	return append(out, "\n\n"...)
}

// requestID is the JSON-RPC id of the host's own request, read again from
// its body (net/http keeps a copy for redirects); nil when it has none.
func requestID(req *http.Request) json.RawMessage {
	if req == nil || req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(rc).Decode(&m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// eventRun counts the bytes of the server-sent event being received: the
// bytes since the end of the last blank line. A blank line is what mcp-go
// dispatches an event on: a line that is empty once its trailing "\r" and
// "\n" are trimmed, so both "\n\n" and "\r\n\r\n" end an event. A lone
// "\r" ends a line for the SSE specification but not for mcp-go, which
// keeps buffering, so it ends nothing here either. It also adds up what
// mcp-go copies joining the event's data lines: at the end of each line
// that starts "data:", the event so far.
type eventRun struct {
	limit     int64
	joinLimit int64

	n      int64 // bytes of the event so far
	joined int64 // bytes copied joining its data lines
	text   bool  // the current line holds a byte other than '\r'
	prefix int   // how much of "data:" the current line starts with; -1 when it does not
}

// feed counts p and returns the index of the byte at which the event
// passes a bound, or -1; lines says it was the bound on joining data
// lines. The blank line that ends an event counts in it.
func (r *eventRun) feed(p []byte) (i int, lines bool) {
	for i, c := range p {
		r.n++
		if r.n > r.limit {
			return i, false
		}
		if r.prefix >= 0 && r.prefix < len("data:") {
			if c == "data:"[r.prefix] {
				r.prefix++
			} else {
				r.prefix = -1
			}
		}
		switch c {
		case '\n':
			if !r.text {
				r.n, r.joined = 0, 0
			} else if r.prefix == len("data:") {
				r.joined += r.n
				if r.joined > r.joinLimit {
					return i, true
				}
			}
			r.text, r.prefix = false, 0
		case '\r':
		default:
			r.text = true
		}
	}
	return -1, false
}
