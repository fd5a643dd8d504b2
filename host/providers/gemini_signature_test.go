package providers

import (
	"encoding/json"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// TestGeminiThoughtSignatureReplayedOnItsPart: a Gemini 3 model sends a
// thoughtSignature on the part of its first functionCall
// (https://ai.google.dev/gemini-api/docs/thought-signatures: "you must
// return all thought signatures … back to the model in their respective
// parts", or the request is refused with a 400). The reply keeps it on
// the call, and the next request carries it on that same functionCall
// part, not on another part and not on a call that had none.
func TestGeminiThoughtSignatureReplayedOnItsPart(t *testing.T) {
	h := newHarness(t, ProviderGemini,
		pt.Step{ToolCalls: []pt.ToolCall{
			{Name: "read_file", Args: `{"path":"a"}`, Signature: "c2lnLW9uZQ=="}, // "sig-one"
			{Name: "read_file", Args: `{"path":"b"}`},                            // parallel: no signature
		}},
		pt.Step{Text: []string{"done"}})
	r, _, err := h.stream(t, hello())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 || string(r.ToolCalls[0].Signature) != "sig-one" || r.ToolCalls[1].Signature != nil {
		t.Fatalf("calls %+v", r.ToolCalls)
	}
	// The turn loop names unnamed calls; the ids go back as sent.
	r.ToolCalls[0].ID, r.ToolCalls[1].ID = "call_a", "call_b"
	// The history goes through JSON as the store keeps it.
	stored, _ := json.Marshal(Message{Role: RoleAssistant, ToolCalls: r.ToolCalls})
	var back Message
	if err := json.Unmarshal(stored, &back); err != nil {
		t.Fatal(err)
	}
	req := hello()
	req.Messages = append(req.Messages, back, Message{Role: RoleTool, ToolResults: []ToolResult{
		{CallID: "call_a", Name: "read_file", Content: "A"}, {CallID: "call_b", Name: "read_file", Content: "B"}}})
	if _, _, err := h.stream(t, req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				ThoughtSignature string          `json:"thoughtSignature"`
				FunctionCall     *map[string]any `json:"functionCall"`
				Text             string          `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Contents) != 3 || body.Contents[1].Role != "model" || len(body.Contents[1].Parts) != 2 {
		t.Fatalf("contents: %s", h.srv.Requests()[1].Body)
	}
	p0, p1 := body.Contents[1].Parts[0], body.Contents[1].Parts[1]
	if p0.FunctionCall == nil || p0.ThoughtSignature != "c2lnLW9uZQ==" || (*p0.FunctionCall)["id"] != "call_a" {
		t.Errorf("first call part: %+v", p0)
	}
	if p1.FunctionCall == nil || p1.ThoughtSignature != "" {
		t.Errorf("second call part: %+v", p1)
	}
}

// TestGeminiTextSignatureReplayed: a reply without calls carries its
// signature on its last text part; it is kept (as Gemini reasoning
// state) and put back on the replayed text part, and never sent to
// another wire format.
func TestGeminiTextSignatureReplayed(t *testing.T) {
	h := newHarness(t, ProviderGemini, pt.Step{Text: []string{"Hel", "lo"}, TextSignature: "dGV4dC1zaWc="}, pt.Step{Text: []string{"ok"}})
	r, _, err := h.stream(t, hello())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Reasoning) != 1 || r.Reasoning[0].Wire != "gemini" {
		t.Fatalf("reasoning %+v", r.Reasoning)
	}
	req := hello()
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: r.Text, Reasoning: r.Reasoning}, Message{Role: RoleUser, Text: "and?"})
	if _, _, err := h.stream(t, req); err != nil {
		t.Fatal(err)
	}
	body := string(h.srv.Requests()[1].Body)
	if !strings.Contains(body, `{"text":"Hello","thoughtSignature":"dGV4dC1zaWc="}`) {
		t.Fatalf("the text part lost its signature: %s", body)
	}
}
