package main

import (
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// TestACPEditorTerminalIsAlwaysAsked: a client that offers a terminal gets
// editor_terminal in a session whose commands run unconfined (--sandbox
// off). A call allowed once runs in the client's terminal (created in the
// workspace with only the host-built environment: the client's API key
// never reaches it) and its output reaches the model; the approval card
// says it runs unsandboxed and offers no "allow always"; a call past its
// timeout, and one whose turn is cancelled (session/cancel), is killed
// and released in the editor; a rejected call and a command the
// shell guard blocks never reach the client, even with an --approve rule
// for the tool; each call is audited. A client without the terminal
// capability gets no editor_terminal.
func TestACPEditorTerminalIsAlwaysAsked(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_tok", Name: "editor_terminal", Args: `{"command":"echo from-the-editor-terminal; pwd; env"}`}}},
		{Text: []string{"Ran."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_tno", Name: "editor_terminal", Args: `{"command":"echo rejected-command"}`}}},
		{Text: []string{"Not run."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_tblock", Name: "editor_terminal", Args: `{"command":"rm -rf /"}`}}},
		{Text: []string{"Blocked."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_tslow", Name: "editor_terminal", Args: `{"command":"echo started; sleep 60","timeout":1}`}}},
		{Text: []string{"Timed out."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_tcancel", Name: "editor_terminal", Args: `{"command":"sleep 60"}`}}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{
		"flags":    []string{"--sandbox", "off", "--approve", "allow:editor_terminal"},
		"terminal": true,
		"steps": []map[string]any{
			{"prompt": "run it", "answers": []string{"allow_once"}},
			{"prompt": "run another", "answers": []string{"reject_once"}},
			{"prompt": "destroy", "answers": []string{"allow_once"}},
			{"prompt": "slow", "answers": []string{"allow_once"}},
			{"prompt": "cancel it", "answers": []string{"allow_once"}, "cancelOnTerminal": true},
		}})
	if strings.Join(rep.Stops, " ") != "end_turn end_turn end_turn end_turn cancelled" {
		t.Fatalf("stops %v errors %v\nstderr:\n%s", rep.Stops, rep.Errors, stderr)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Body), `"editor_terminal"`) {
		t.Fatalf("editor_terminal is not offered to the model: %.500s", reqs[0].Body)
	}
	// Asked every time, the --approve rule notwithstanding: the blocked
	// command is refused before anyone is asked.
	if len(rep.Permissions) != 4 {
		t.Fatalf("%d permission requests, want 4 (ok, rejected, slow, cancelled)", len(rep.Permissions))
	}
	for _, p := range rep.Permissions {
		var card strings.Builder
		for _, c := range p.Params.ToolCall.Content {
			card.WriteString(toJSON(c))
		}
		if !strings.Contains(card.String(), "UNSANDBOXED in the editor") {
			t.Errorf("the card of %s does not say it runs unsandboxed: %s", p.Params.ToolCall.ToolCallID, card.String())
		}
		for _, o := range p.Params.Options {
			if o.Kind == "allow_always" {
				t.Errorf("%s offers %q", p.Params.ToolCall.ToolCallID, o.Name)
			}
		}
	}
	// Only the allowed calls reached the client's terminal, in the
	// workspace, the slow one killed.
	var methods []string
	for _, c := range rep.Editor {
		methods = append(methods, c.Method)
		if c.Method == "terminal/create" {
			if c.Params["cwd"] != e.ws {
				t.Errorf("terminal/create cwd %v, want %s", c.Params["cwd"], e.ws)
			}
			if s := toJSON(c.Params); strings.Contains(s, "rejected-command") || strings.Contains(s, "rm -rf") {
				t.Errorf("a refused command reached the editor: %s", s)
			}
		}
	}
	want := "terminal/create terminal/wait_for_exit terminal/output terminal/release " +
		"terminal/create terminal/wait_for_exit terminal/kill terminal/output terminal/release " +
		"terminal/create terminal/wait_for_exit terminal/kill terminal/output terminal/release"
	if got := strings.Join(methods, " "); got != want {
		t.Fatalf("what reached the editor:\n%s\nwant\n%s", got, want)
	}
	// The output reached the model, without the client's environment.
	b := string(reqs[1].Body)
	if !strings.Contains(b, "from-the-editor-terminal") || !strings.Contains(b, e.ws) || !strings.Contains(b, "exit code 0") {
		t.Errorf("the model's view of the editor terminal's result: %.1500s", b)
	}
	if strings.Contains(b, "ANTHROPIC_API_KEY") || strings.Contains(b, "sk-ant-test-key") {
		t.Errorf("the client's environment reached the command: %.3000s", b)
	}
	if b := string(reqs[7].Body); !strings.Contains(b, "timed out after 1s") || !strings.Contains(b, "started") {
		t.Errorf("the slow call's result: %.1500s", b)
	}
	s := rep.Sessions[0]
	for id, st := range map[string]string{"call_tok": "completed", "call_tno": "failed", "call_tblock": "failed", "call_tslow": "failed"} {
		if got := lastStatus(rep.callUpdates(s, id)); got != st {
			t.Errorf("%s: %s, want %s", id, got, st)
		}
	}
	out, errOut, err := e.runHost(t, "--sandbox", "off", "audit", "--json", "--tool", "editor_terminal")
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, errOut)
	}
	for _, id := range []string{"call_tok", "call_tno", "call_tblock", "call_tslow", "call_tcancel"} {
		if !strings.Contains(out, id) {
			t.Errorf("no audit event of %s:\n%s", id, out)
		}
	}

	// A client without the terminal capability: no editor_terminal.
	srv2 := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"Hello."}}})
	defer srv2.Close()
	rep2, stderr2 := runACPClient(t, e, dir, srv2.URL, map[string]any{
		"flags": []string{"--sandbox", "off"},
		"steps": []map[string]any{{"prompt": "hi"}}})
	if strings.Join(rep2.Stops, " ") != "end_turn" {
		t.Fatalf("stops %v errors %v\nstderr:\n%s", rep2.Stops, rep2.Errors, stderr2)
	}
	if b := string(srv2.Requests()[0].Body); strings.Contains(b, "editor_terminal") {
		t.Errorf("editor_terminal offered to a client without a terminal: %.500s", b)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
