package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// ACP's stable schema has no free-text question from agent to editor.
// The unstable elicitation/create (form mode) is one: a question without
// choices goes that way when the client declared
// clientCapabilities.elicitation.form; otherwise it is not answered (the
// model hears that the operator gave none, and goes on).
//
// The Go SDK (v0.13.0) types the request without its session scope,
// which the schema requires (sessionId or requestId) and the TypeScript
// SDK checks: the session id rides in _meta under elicitSessionKey and
// acpWriter moves it to params.sessionId on the way out.
const elicitSessionKey = "demiurge.dev/sessionId"

// elicitsForms says whether the client declared form elicitation.
func (a *acpAgent) elicitsForms() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client.Elicitation != nil && a.client.Elicitation.Form != nil
}

// elicitText asks question as a one-field form; only an accepted form
// with a text answer answers.
func (s *acpSession) elicitText(ctx context.Context, question string) (string, bool) {
	if s.agent.conn == nil || !s.agent.elicitsForms() {
		return "", false
	}
	ctx, cancel := s.withTurn(ctx)
	defer cancel()
	title := "Answer"
	req := acp.UnstableCreateElicitationRequest{Form: &acp.UnstableCreateElicitationForm{
		Meta:    map[string]any{elicitSessionKey: s.id()},
		Message: "the agent asks: " + acpInert(question, 4000),
		RequestedSchema: acp.UnstableElicitationSchema{Type: "object", Required: []string{"answer"},
			Properties: map[string]any{"answer": map[string]any{"type": "string", "title": title}}},
	}}
	res, err := s.agent.conn.UnstableCreateElicitation(ctx, req)
	if err != nil || res.Accept == nil {
		return "", false
	}
	answer, ok := res.Accept.Content["answer"].(string)
	if !ok || strings.TrimSpace(answer) == "" {
		return "", false
	}
	return answer, true
}

// withElicitSession moves an elicitation/create's session id from _meta
// to params.sessionId; any other line, or one it cannot read, is kept.
func withElicitSession(line []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return line
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta[elicitSessionKey] == nil {
		return line
	}
	params["sessionId"] = meta[elicitSessionKey]
	delete(meta, elicitSessionKey)
	if len(meta) == 0 {
		delete(params, "_meta")
	} else {
		params["_meta"], _ = json.Marshal(meta)
	}
	var err error
	if msg["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}
