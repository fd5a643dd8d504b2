package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/catalog/jsonscan"
)

// On a connection pinned to a version before 2026-07-28 the host sends
// tools/call on the transport itself, as it sends tools/list, and reads
// the answer once: mcp-go's CallTool scans a result four times over
// (ParseCallToolResult's probe, the result, each item's type, each item)
// and builds a map of any structured content that the adapter then
// ignores for its raw bytes, about a third of the client's work on a call.
// What CallTool adds on such a connection is done here too: the request
// is the same CallToolParams, an error is the transport's error as
// CallTool wraps it, and a request whose context ends is cancelled at a
// stdio server with notifications/cancelled carrying ctx.Err's text. A
// stateless (2026-07-28) connection keeps CallTool: its requests carry
// _meta and headers, and a result may ask for input (multi round trip).

// cancelNotifyTimeout bounds sending a notifications/cancelled (mcp-go's
// own bound for the same notification).
const cancelNotifyTimeout = 5 * time.Second

// sendToolCall sends one tools/call and returns its raw result.
func (c *conn) sendToolCall(ctx context.Context, params mcp.CallToolParams) (json.RawMessage, error) {
	req := transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodToolsCall), Params: params,
		ID: mcp.NewRequestId("demiurge-call-" + strconv.FormatInt(c.listSeq.Add(1), 10)),
	}
	if err := ctx.Err(); err != nil { // not sent: nothing to cancel
		return nil, transport.NewError(err)
	}
	resp, err := c.transport.SendRequest(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			c.cancelAtServer(ctx, req.ID)
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// cancelAtServer tells a stdio server that request id's context ended,
// off the caller's path (a server that does not read must not hold the
// caller). Over HTTP ending the request is the cancellation.
func (c *conn) cancelAtServer(ctx context.Context, id mcp.RequestId) {
	if _, ok := c.transport.(transport.HTTPConnection); ok {
		return
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()}},
	}}
	go func() {
		sctx, cancel := context.WithTimeout(context.Background(), cancelNotifyTimeout)
		defer cancel()
		_ = c.transport.SendNotification(sctx, n)
	}()
}

// callAnswer is a tools/call result as the adapter uses it: the content
// as text (contentText), whether it is an error, and the structured
// content's bytes as the server sent them.
type callAnswer struct {
	text       string
	isError    bool
	structured json.RawMessage
	// parsed is mcp-go's reading, when the answer was not the common
	// shape (or came through CallTool); its StructuredContent is used when
	// the raw bytes are missing.
	parsed *mcp.CallToolResult
}

// answerOf is mcp-go's result as an answer.
func answerOf(res *mcp.CallToolResult) callAnswer {
	return callAnswer{text: contentText(res.Content), isError: res.IsError, structured: res.RawStructuredContent, parsed: res}
}

// commonResult is the shape almost every result has: text items, maybe
// structured content, maybe isError. The other fields are read only to
// send a result that has them to mcp-go's parser.
type commonResult struct {
	Content           commonItems     `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              json.RawMessage `json:"_meta"`
	ResultType        json.RawMessage `json:"resultType"`
	InputRequests     json.RawMessage `json:"inputRequests"`
	RequestState      json.RawMessage `json:"requestState"`
}

// commonItems decodes each content list into a new slice: encoding/json
// decodes a repeated key's list into the slice it already filled, so an
// item of the last list missing its text kept an earlier list's text,
// where mcp-go reads the last list alone.
type commonItems []commonItem

func (l *commonItems) UnmarshalJSON(b []byte) error {
	var fresh []commonItem
	if err := json.Unmarshal(b, &fresh); err != nil {
		return err
	}
	*l = fresh
	return nil
}

type commonItem struct {
	Type        string          `json:"type"`
	Text        *string         `json:"text"`
	Annotations json.RawMessage `json:"annotations"`
	Meta        json.RawMessage `json:"_meta"`
}

// readAnswer reads a raw tools/call result once when it has the common
// shape, and otherwise through mcp.ParseCallToolResult, so that every
// answer, and every refusal, is the one CallTool would have given
// (TestReadAnswerAsMCPGo, FuzzReadAnswer). needsInput reports a result
// that asks for input first (mcp-go's multi round trip), which CallTool
// would have answered and sent again.
func readAnswer(raw json.RawMessage) (ans callAnswer, needsInput bool, err error) {
	if text, isError, ok := plainAnswer(raw); ok {
		return callAnswer{text: text, isError: isError}, false, nil
	}
	var r commonResult
	if json.Unmarshal(raw, &r) == nil && r.common() {
		return callAnswer{text: r.text(), isError: r.IsError, structured: r.StructuredContent}, false, nil
	}
	res, err := mcp.ParseCallToolResult(&raw)
	if err != nil {
		return callAnswer{}, false, err
	}
	if res.NeedsInput() {
		return callAnswer{}, true, nil
	}
	return answerOf(res), false, nil
}

// common reports whether r is read here exactly as mcp-go reads it: a
// content list (present, not null) of text items with a string text and
// nothing mcp-go would decode further, and no field of the multi round
// trip or _meta (which mcp-go checks), and no structured content with a
// number mcp-go cannot decode (floatsFit).
func (r *commonResult) common() bool {
	if r.Content == nil || !floatsFit(r.StructuredContent) || r.Meta != nil || r.ResultType != nil || r.InputRequests != nil || r.RequestState != nil {
		return false
	}
	for _, it := range r.Content {
		if it.Type != mcp.ContentTypeText || it.Text == nil || it.Annotations != nil || it.Meta != nil {
			return false
		}
	}
	return true
}

// text is contentText of r's items: one is its text itself.
func (r *commonResult) text() string {
	if len(r.Content) == 1 {
		return *r.Content[0].Text
	}
	n := len(r.Content)
	for _, it := range r.Content {
		n += len(*it.Text)
	}
	b := make([]byte, 0, n)
	for i, it := range r.Content {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, *it.Text...)
	}
	return string(b)
}

// plainAnswer reads the plainest common result without encoding/json:
// {"content":[{"type":"text","text":"..."},...],"isError":bool}, keys
// spelled exactly, each at most once, in any order, isError optional,
// strings with no escape, no control character and valid UTF-8 (so each
// is its bytes as they are), JSON whitespace between tokens. Anything
// else, structured content included, is not ok and goes to readAnswer's
// decoder: this only skips a reflective decode (its validity scan, its
// parse-state stack and its items, some ten allocations) for the answer
// almost every call gets, and reads it as the decoder does
// (TestPlainAnswerIsTheDecoders, FuzzReadAnswer).
func plainAnswer(raw []byte) (text string, isError bool, ok bool) {
	p := plainScan{jsonscan.Scan{B: raw}}
	if !p.Next('{') {
		return "", false, false
	}
	var texts []string
	var sawContent, sawError bool
	if !p.Next('}') {
		for {
			key, ok := p.str()
			if !ok || !p.Next(':') {
				return "", false, false
			}
			switch {
			case string(key) == "content" && !sawContent:
				sawContent = true
				if texts, ok = p.items(); !ok {
					return "", false, false
				}
			case string(key) == "isError" && !sawError:
				sawError = true
				if isError, ok = p.boolean(); !ok {
					return "", false, false
				}
			default:
				return "", false, false
			}
			if p.Next('}') {
				break
			}
			if !p.Next(',') {
				return "", false, false
			}
		}
	}
	p.Space()
	if !sawContent || p.I != len(p.B) {
		return "", false, false
	}
	// As commonResult.text: one item is its text, more are joined a line each.
	return strings.Join(texts, "\n"), isError, true
}

// plainScan reads plainAnswer's shape.
type plainScan struct{ jsonscan.Scan }

// str reads a string with no escape and no control character, valid
// UTF-8: the decoder's string is then exactly its bytes.
func (p *plainScan) str() ([]byte, bool) {
	if !p.Next('"') {
		return nil, false
	}
	start := p.I
	for ; p.I < len(p.B); p.I++ {
		switch c := p.B[p.I]; {
		case c == '"':
			s := p.B[start:p.I]
			p.I++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// boolean reads true or false.
func (p *plainScan) boolean() (v, ok bool) {
	p.Space()
	switch rest := p.B[p.I:]; {
	case bytes.HasPrefix(rest, []byte("true")):
		p.I += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		p.I += 5
		return false, true
	}
	return false, false
}

// items reads a content list of {"type":"text","text":"..."} items (the
// two keys in either order, each once, nothing else) and returns their
// texts.
func (p *plainScan) items() ([]string, bool) {
	if !p.Next('[') {
		return nil, false
	}
	texts := []string{}
	if p.Next(']') {
		return texts, true
	}
	for {
		if !p.Next('{') {
			return nil, false
		}
		var text []byte
		var sawType, sawText bool
		for {
			key, ok := p.str()
			if !ok || !p.Next(':') {
				return nil, false
			}
			val, ok := p.str()
			if !ok {
				return nil, false
			}
			switch {
			case string(key) == "type" && !sawType && string(val) == mcp.ContentTypeText:
				sawType = true
			case string(key) == "text" && !sawText:
				sawText, text = true, val
			default:
				return nil, false
			}
			if p.Next('}') {
				break
			}
			if !p.Next(',') {
				return nil, false
			}
		}
		if !sawType || !sawText {
			return nil, false
		}
		texts = append(texts, string(text))
		if p.Next(']') {
			return texts, true
		}
		if !p.Next(',') {
			return nil, false
		}
	}
}
