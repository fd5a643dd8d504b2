package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/dispatch"
	sredact "demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// Adapter binds one connection's tools to the catalog: dispatch hands it
// back with each entry, so a call reaches exactly the connection its tool
// was discovered on, never a later one found by name.
type Adapter struct {
	conn *conn
	// names maps model-visible names to the server's own.
	names map[string]string
	// timeout is the host's call timeout (Config.CallTimeout).
	timeout time.Duration
}

var _ dispatch.Adapter = (*Adapter)(nil)

// Invoke calls the tool on its server. The call's context reaches the
// server: when it ends, the server is told to cancel the request. Errors
// are redacted against the declaration's env, header and argument values.
func (a *Adapter) Invoke(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	id := a.conn.plan.server.ID
	raw, ok := a.names[inv.Tool]
	if !ok {
		return nil, fmt.Errorf("%s is not a tool of MCP server %s", inv.Tool, id)
	}
	if !a.conn.alive() {
		return nil, disconnected(id)
	}
	cctx := a.conn.deadlines.start(ctx, callTimedOut{server: id, tool: raw, after: a.timeout}) // call_deadline.go
	defer a.conn.deadlines.end(cctx)
	ctx = cctx
	res, err := a.conn.call(ctx, raw, inv.Args, a.progress(inv.OnEvent, inv.Progress))
	if err != nil {
		cause := context.Cause(ctx)
		if timedOut := &cctx.timedOut; errors.Is(cause, timedOut) {
			return nil, timedOut
		}
		if cause == errConnectionClosed { // closed between alive and start
			return nil, disconnected(id)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the call to MCP server %s was cancelled: %w", id, ctx.Err())
		}
		return nil, errors.New(a.conn.plan.redactErr(fmt.Errorf("MCP server %s: %w", id, err)))
	}
	return a.result(res), nil
}

// disconnected is the answer to a call on a connection that is gone.
func disconnected(id string) error {
	return fmt.Errorf("MCP server %s is disconnected; its tools return once it reconnects in a later turn", id)
}

// callTimedOut is a call's cause when the host's call timeout ends it;
// its message is written only when it is read, not on every call.
type callTimedOut struct {
	server, tool string
	after        time.Duration
}

func (e *callTimedOut) Error() string {
	return fmt.Sprintf("MCP server %s did not answer %s within the host's call timeout of %s, so the request was cancelled; the operator sets the timeout with --call-timeout", e.server, e.tool, e.after)
}

// progress forwards the server's notifications/progress for this call to
// the invocation's events (onEvent), with the declaration's secrets
// redacted (a server may quote its configuration); nil when no one
// listens, and then the request carries no progress token. It takes the
// two fields, not the Invocation: a closure over the whole struct moved
// it (some 400 bytes) to the heap on every call, listened to or not.
func (a *Adapter) progress(onEvent func(*toolsetv1.InvokeEvent) error, wanted bool) progressFunc {
	if onEvent == nil || !wanted {
		return nil
	}
	return func(msg string, fraction float64) {
		msg = a.conn.plan.redactErr(errors.New(msg))
		_ = onEvent(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Progress{
			Progress: &toolsetv1.Progress{Message: msg, Fraction: fraction}}})
	}
}

// Precheck has nothing to ask: MCP has no effect-free check, and MCP
// entries never declare one.
func (a *Adapter) Precheck(context.Context, dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

// result turns an MCP result into the host's: text content joined, other
// content named by kind and size, structured content kept as JSON. Known
// declaration values are redacted here too (a server echoing its key).
func (a *Adapter) result(res callAnswer) *toolsetv1.ToolResult {
	out := &toolsetv1.ToolResult{IsError: res.isError, Content: a.conn.plan.secrets.String(res.text)}
	if len(res.structured) > 0 && json.Valid(res.structured) {
		out.Structured = structuredRedacted(a.conn.plan.secrets, res.structured)
	} else if res.parsed != nil && res.parsed.StructuredContent != nil {
		if js, err := json.Marshal(res.parsed.StructuredContent); err == nil {
			out.Structured = structuredRedacted(a.conn.plan.secrets, js)
		}
	}
	return out
}

// structuredRedacted is the JSON text js (valid) with the declared values
// replaced in its keys and strings however js spells them. A key or
// string without an escape is its bytes as they stand (in valid UTF-8),
// so the values are replaced in the text (the common result, at the cost
// of one scan), unless a key or string with an escape (\u0041, \/, a
// quote or a backslash, which JSON always escapes) holds one once decoded
// or the replacement leaves the text invalid (a value in a number): then
// js is decoded, its keys, strings and numbers' texts replaced, and
// encoded again. dispatch cannot do this itself: the declared values are
// the adapter's alone (TestStructuredContentHidesEveryDeclaredSpelling).
func structuredRedacted(secrets *sredact.Replacer, js []byte) []byte {
	if secrets.Empty() {
		return js
	}
	if utf8.Valid(js) && !escapedHoldsSecret(secrets, js) {
		if r := secrets.String(string(js)); r == string(js) || json.Valid([]byte(r)) {
			return []byte(r)
		}
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(redactDecoded(secrets, v)) != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// escapedHoldsSecret reports whether a key or string of js (valid JSON)
// written with an escape holds a declared value once decoded. Outside
// strings valid JSON has no quote, so the strings are found by their
// quotes alone.
func escapedHoldsSecret(secrets *sredact.Replacer, js []byte) bool {
	if bytes.IndexByte(js, '\\') < 0 {
		return false
	}
	for i := 0; i < len(js); i++ {
		if js[i] != '"' {
			continue
		}
		start, escaped := i, false
		for i++; js[i] != '"'; i++ {
			if js[i] == '\\' {
				escaped = true
				i++
			}
		}
		if escaped {
			var s string
			if json.Unmarshal(js[start:i+1], &s) != nil || secrets.Contains(s) {
				return true
			}
		}
	}
	return false
}

// redactDecoded replaces the declared values in a decoded JSON value's
// keys, strings and numbers (a number holding one becomes the string
// with its marker, as the views write it).
func redactDecoded(secrets *sredact.Replacer, v any) any {
	switch v := v.(type) {
	case string:
		return secrets.String(v)
	case json.Number:
		if r := secrets.String(string(v)); r != string(v) {
			return r
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = redactDecoded(secrets, e)
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[secrets.String(k)] = redactDecoded(secrets, e)
		}
		return out
	}
	return v
}

// contentText joins a result's content: text as it is, other content
// named by kind and size, one item a line. The common answer, a single
// text item, is its text itself, not a copy of it.
func contentText(content []mcp.Content) string {
	if len(content) == 1 {
		if t, ok := content[0].(mcp.TextContent); ok {
			return t.Text
		}
	}
	var b strings.Builder
	for i, c := range content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case mcp.TextContent:
			b.WriteString(c.Text)
		case mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d base64 bytes]", c.MIMEType, len(c.Data))
		case mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d base64 bytes]", c.MIMEType, len(c.Data))
		case mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource link %s]", c.URI)
		case mcp.EmbeddedResource:
			if t, ok := c.Resource.(mcp.TextResourceContents); ok {
				b.WriteString(t.Text)
			} else {
				b.WriteString("[embedded resource]")
			}
		default:
			b.WriteString("[unsupported content]")
		}
	}
	return b.String()
}
