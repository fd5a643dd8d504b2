package turn_test

import (
	"context"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// TestCallIDsUniqueInSessionAndStateKept: a model that names no call
// (Gemini) or numbers every step's calls from call_0 again (some
// OpenAI-compatible servers) still gets ids unique in the whole session,
// across steps and turns, since a provider matches results to calls by id
// over the replayed history. A call's signature and the step's reasoning
// state survive the store and are replayed with the next request.
func TestCallIDsUniqueInSessionAndStateKept(t *testing.T) {
	reasoning := []providers.Reasoning{{Wire: "openai-responses", Item: []byte(`{"type":"reasoning","id":"rs_1","encrypted_content":"ENC"}`)}}
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		switch n {
		case 1, 4:
			r := calls(call("", "list_dir", `{}`), call("", "list_dir", `{}`))
			r.ToolCalls[0].Signature = []byte("sig")
			r.Reasoning = reasoning
			return r, nil
		case 2:
			return calls(call("call_0", "list_dir", `{}`)), nil
		case 5:
			return calls(call("call_0", "list_dir", `{}`)), nil
		}
		return answer("ok"), nil
	}}
	f := newFixture(t, model)
	ctx := context.Background()
	for range 2 {
		if res, err := f.loop.Run(ctx, "look", &recorder{}); err != nil || res.Status != "done" {
			t.Fatal(res, err)
		}
	}
	reqs := model.requests()
	last := reqs[len(reqs)-1]
	seen := map[string]bool{}
	n := 0
	for _, m := range last.Messages {
		for _, c := range m.ToolCalls {
			n++
			if c.ID == "" || seen[c.ID] {
				t.Errorf("call id %q empty or repeated: %+v", c.ID, last.Messages)
			}
			seen[c.ID] = true
		}
	}
	if n != 6 {
		t.Fatalf("%d calls in the history, want 6", n)
	}
	// The second request replays the first step's state.
	second := reqs[1].Messages
	var a providers.Message
	for _, m := range second {
		if m.Role == providers.RoleAssistant {
			a = m
		}
	}
	if string(a.ToolCalls[0].Signature) != "sig" || a.ToolCalls[1].Signature != nil {
		t.Errorf("signatures not replayed: %+v", a.ToolCalls)
	}
	if len(a.Reasoning) != 1 || string(a.Reasoning[0].Item) != string(reasoning[0].Item) {
		t.Errorf("reasoning not replayed: %+v", a.Reasoning)
	}
}

// TestCallIDsUniqueAcrossResume: a loop made over a stored session (a
// resume) knows the ids its history used: a server that numbers calls
// from call_0 again gets a fresh id, not one the replayed history holds.
func TestCallIDsUniqueAcrossResume(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n%2 == 1 {
			return calls(call("call_0", "list_dir", `{}`)), nil
		}
		return answer("ok"), nil
	}}
	f := newFixture(t, model)
	ctx := context.Background()
	if res, err := f.loop.Run(ctx, "look", &recorder{}); err != nil || res.Status != "done" {
		t.Fatal(res, err)
	}
	resumed := &turn.Loop{Provider: model, Session: f.h.Session(), Store: f.store}
	defer resumed.Close()
	if res, err := resumed.Run(ctx, "look again", &recorder{}); err != nil || res.Status != "done" {
		t.Fatal(res, err)
	}
	reqs := model.requests()
	var ids []string
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) != 2 || ids[0] != "call_0" || ids[1] == "call_0" || ids[1] == "" {
		t.Fatalf("call ids after the resume: %q, want call_0 and a fresh one", ids)
	}
}
