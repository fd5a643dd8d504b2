package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/toolsetv1"
)

//go:embed session_search.md
var sessionSearchDoc string

type sessionSearchParams struct {
	Query string `json:"query,omitempty" jsonschema:"maxLength=500" jsonschema_description:"Words to find in message text. Leave out to browse sessions, or with conversation_id to read its latest messages."`
	// Not "session_id": a field named like a session cookie is redacted
	// from every view as a secret.
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"maxLength=128" jsonschema_description:"One conversation to read or search (its ses_... id); leave out for the current one (or, under the operator scope, all of yours)."`
	Limit          *int   `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50" jsonschema_description:"Results to return (default 10, at most 50)."`
	Scope          string `json:"scope,omitempty" jsonschema:"enum=session,enum=operator" jsonschema_description:"session (default): this session only. operator: every session of yours; the operator must approve it, with a reason, and it is audited."`
	Reason         string `json:"reason,omitempty" jsonschema:"maxLength=500" jsonschema_description:"Why the operator scope is needed; required with scope operator, shown to the operator and audited."`
}

func newSessionSearch() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "session_search", Description: sessionSearchDoc, Effect: sdk.EffectRead,
		HostServices: []string{"session_history"},
		Metadata:     sdk.Metadata{Risk: "medium", Capability: "session.read", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
	}, sessionSearch)
}

func sessionSearch(ctx *sdk.Context, p sessionSearchParams) (*sdk.Result, error) {
	operator := p.Scope == "operator"
	switch {
	case operator && strings.TrimSpace(p.Reason) == "":
		// No "session_search:" prefix in messages: the redactor reads
		// "session...: text" as a secret assignment.
		return sdk.Errorf("invalid_arguments", "scope operator needs a reason"), nil
	case !operator && p.Reason != "":
		return sdk.Errorf("invalid_arguments", "reason is only for scope operator"), nil
	}
	req := &toolsetv1.SessionSearchRequest{Query: p.Query, SessionId: p.ConversationID, OperatorScope: operator, Reason: p.Reason}
	if p.Limit != nil {
		req.Limit = uint32(*p.Limit)
	}
	resp, err := ctx.SessionSearch(req)
	switch {
	case sdk.IsNotFound(err):
		return sdk.Errorf("session_not_found", "%s", sdk.HostMessage(err)), nil
	case sdk.IsInvalid(err):
		return sdk.Errorf("invalid_arguments", "%s", sdk.HostMessage(err)), nil
	case sdk.IsNotPermitted(err):
		return sdk.Errorf("not_permitted", "%s", sdk.HostMessage(err)), nil
	case err != nil:
		return nil, fmt.Errorf("history search failed: %s", sdk.HostMessage(err))
	}
	return &sdk.Result{Content: renderHistory(resp), Structured: historyPayload(resp)}, nil
}

type hitPayload struct {
	ConversationID string `json:"conversation_id"`
	Seq            uint64 `json:"seq"`
	Role           string `json:"role"`
	Created        string `json:"created,omitempty"`
	Snippet        string `json:"snippet"`
}

type sessionPayload struct {
	ConversationID string `json:"conversation_id"`
	Created        string `json:"created,omitempty"`
	Messages       uint64 `json:"messages"`
	Preview        string `json:"preview,omitempty"`
	Current        bool   `json:"current,omitempty"`
}

type searchPayload struct {
	Mode      string           `json:"mode"`
	Sessions  []sessionPayload `json:"conversations,omitempty"`
	Hits      []hitPayload     `json:"hits,omitempty"`
	Total     uint64           `json:"total"`
	Truncated bool             `json:"truncated,omitempty"`
}

func historyPayload(r *toolsetv1.SessionSearchResponse) searchPayload {
	out := searchPayload{Mode: r.GetMode(), Total: r.GetTotal(), Truncated: r.GetTruncated()}
	for _, s := range r.GetSessions() {
		out.Sessions = append(out.Sessions, sessionPayload{ConversationID: s.GetSessionId(), Created: s.GetCreated(), Messages: s.GetMessages(), Preview: s.GetPreview(), Current: s.GetCurrent()})
	}
	for _, h := range r.GetHits() {
		out.Hits = append(out.Hits, hitPayload{ConversationID: h.GetSessionId(), Seq: h.GetSeq(), Role: h.GetRole(), Created: h.GetCreated(), Snippet: h.GetSnippet()})
	}
	return out
}

// renderHistory is one line per session or message and a footer that
// says how many there were.
func renderHistory(r *toolsetv1.SessionSearchResponse) string {
	var b strings.Builder
	switch r.GetMode() {
	case "browse":
		for _, s := range r.GetSessions() {
			cur := ""
			if s.GetCurrent() {
				cur = " (current)"
			}
			fmt.Fprintf(&b, "%s%s %s, %d messages: %s\n", s.GetSessionId(), cur, s.GetCreated(), s.GetMessages(), s.GetPreview())
		}
		fmt.Fprintf(&b, "[%d of %d sessions]\n", len(r.GetSessions()), r.GetTotal())
	default:
		for _, h := range r.GetHits() {
			fmt.Fprintf(&b, "%s #%d %s %s: %s\n", h.GetSessionId(), h.GetSeq(), h.GetRole(), h.GetCreated(), h.GetSnippet())
		}
		noun := "matches"
		if r.GetMode() == "session" {
			noun = "messages"
		}
		fmt.Fprintf(&b, "[%d of %d %s]\n", len(r.GetHits()), r.GetTotal(), noun)
	}
	if r.GetTruncated() {
		b.WriteString("More were left out: narrow the query or raise limit (at most 50).\n")
	}
	return b.String()
}
