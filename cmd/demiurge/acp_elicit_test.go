package main

import (
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// TestACPClarifyFreeTextThroughElicitation: a clarify question without
// choices reaches a client that declared form elicitation as
// elicitation/create, scoped to the session (sessionId, which the Go SDK
// leaves out), and the text typed in the form is the model's answer; a
// declined form is no answer. A client without elicitation is never asked
// and the model hears that no answer came.
func TestACPClarifyFreeTextThroughElicitation(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	ask := func(id string) providertest.Step {
		return providertest.Step{ToolCalls: []providertest.ToolCall{{ID: id, Name: "clarify", Args: `{"question":"What should the branch be called?"}`}}}
	}
	srv := providertest.NewServer("anthropic", []providertest.Step{
		ask("call_q1"), {Text: []string{"Thanks."}},
		ask("call_q2"), {Text: []string{"Fine."}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{
		"elicit": []string{"feature/typed-in-the-editor", "decline"},
		"steps":  []map[string]any{{"prompt": "ask me"}, {"prompt": "ask again"}}})
	if strings.Join(rep.Stops, " ") != "end_turn end_turn" {
		t.Fatalf("stops %v errors %v\nstderr:\n%s", rep.Stops, rep.Errors, stderr)
	}
	if len(rep.Elicitations) != 2 {
		t.Fatalf("%d elicitations, want 2", len(rep.Elicitations))
	}
	el := rep.Elicitations[0]
	if el["sessionId"] != rep.Sessions[0] || el["mode"] != "form" || !strings.Contains(toJSON(el["message"]), "What should the branch be called?") {
		t.Errorf("the elicitation: %s", toJSON(el))
	}
	if m, ok := el["_meta"].(map[string]any); ok && m[elicitSessionKey] != nil {
		t.Errorf("the session id stayed in _meta: %s", toJSON(el))
	}
	reqs := srv.Requests()
	if b := string(reqs[1].Body); !strings.Contains(b, "feature/typed-in-the-editor") {
		t.Errorf("the answer did not reach the model: %.1500s", b)
	}
	if b := string(reqs[3].Body); strings.Contains(b, "feature/typed-in-the-editor\"}") || !strings.Contains(b, "gave no answer") {
		t.Errorf("the declined form's result: %.2000s", b)
	}

	// Without the capability: never asked, no answer.
	srv2 := providertest.NewServer("anthropic", []providertest.Step{ask("call_q3"), {Text: []string{"Assumed."}}})
	defer srv2.Close()
	rep2, stderr2 := runACPClient(t, e, dir, srv2.URL, map[string]any{"steps": []map[string]any{{"prompt": "ask me"}}})
	if strings.Join(rep2.Stops, " ") != "end_turn" || len(rep2.Permissions) != 0 || len(rep2.Elicitations) != 0 {
		t.Fatalf("stops %v permissions %d elicitations %d\nstderr:\n%s", rep2.Stops, len(rep2.Permissions), len(rep2.Elicitations), stderr2)
	}
	if b := string(srv2.Requests()[1].Body); !strings.Contains(b, "gave no answer") {
		t.Errorf("the unanswered question's result: %.1500s", b)
	}
}
