package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// handle is every tools/call: one dispatch.Call in a fresh turn of the
// client's own session, with the client as its approver.
func (s *Server) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	inTask := req.Params.Task != nil // an MCP task: its answer was sent (tasks.go)
	if inTask {
		var end func()
		ctx, end = s.tasks.start(ctx, req.Params.Task)
		defer end()
		if ctx.Err() != nil { // cancelled, or its session ended, before it ran
			return mcp.NewToolResultError("the task was cancelled before it ran"), nil
		}
	}
	ses, err := s.sessionFor(ctx)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	turn, err := ses.NewToolTurn(ctx, req.Params.Name)
	if err != nil {
		return mcp.NewToolResultError("the catalog could not be resolved for this call: " + err.Error()), nil
	}
	// A changed catalog is listed by the watcher (Watch): a fingerprint
	// of every entry on each call would cost more than the call.
	args := []byte(req.Params.RawArguments)
	if len(args) == 0 && req.Params.Arguments != nil {
		if args, err = json.Marshal(req.Params.Arguments); err != nil {
			return mcp.NewToolResultError("arguments could not be read: " + err.Error()), nil
		}
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = []byte("{}")
	}
	call := dispatch.ToolCall{ID: s.nextCallID(), Name: req.Params.Name, Args: args}
	ap := s.approverFor(ctx, ses.ID(), call, req.Params.MultiRoundTripParams)
	r := *turn.Approvals // the host's rules and session allows, this client's provider
	r.Provider = ap.provider()
	if s.opts.Approve != nil {
		if r.Rules, err = approval.WithCommandLine(r.Rules, s.opts.Approve); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
	}
	if inTask {
		r.Provider = approval.DenyAll{} // nobody to ask once the task was created
	}
	turn.Approvals = &r
	out := turn.Call(ctx, call)
	if inTask {
		return taskResultOf(out), nil
	}
	if res := ap.inputRequired(); res != nil {
		return res, nil
	}
	if call.Name == catalog.SearchCapabilitiesTool && out.OK() {
		// What it activated is now in this session's tools/list.
		s.notifyListChanged(ctx)
	}
	return resultOf(out, ap.canElicit), nil
}

// resultOf is an outcome as the client's model sees it: the model view as
// text, and as structuredContent when it is a JSON object; a call that
// did not succeed is a tool error the model can act on.
func resultOf(out dispatch.Outcome, clientAsked bool) *mcp.CallToolResult {
	text := out.Views.Model.String() // the client gets one string: joined once here
	if !out.OK() {
		text = fmt.Sprintf("%s: %s", out.Status, text)
		if out.Status == dispatch.StatusDenied && out.Approval.Via == approval.ViaDeny && !clientAsked {
			text += "\n(this MCP client cannot answer approvals: it does not support elicitation. The operator approves with --approve allow:" +
				out.Tool + " on the `demiurge mcp serve` command line.)"
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: !out.OK()}
	if out.OK() {
		if obj := jsonObject(text); obj != nil {
			res.StructuredContent = obj
		}
	}
	return res
}

// jsonObject is s decoded when it is one JSON object, else nil.
func jsonObject(s string) map[string]any {
	b := bytes.TrimSpace([]byte(s))
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// clientCanElicit reports whether the client declared elicitation: per
// request on the stateless revision, at initialize before it.
func clientCanElicit(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities != nil && info.ClientCapabilities.Elicitation != nil
	}
	if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return cs.GetClientCapabilities().Elicitation != nil
	}
	return false
}
