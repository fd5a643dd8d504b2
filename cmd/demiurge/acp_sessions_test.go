package main

import (
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// TestACPSessionListResumeClose: initialize declares session list, resume
// and close; session/list gives the principal's recorded sessions in the
// workspace (none for a project outside it); session/close ends the
// session on this connection (a prompt to it is refused); session/resume
// opens it again without a replay, and its next turn carries the history.
func TestACPSessionListResumeClose(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{Text: []string{"First answer."}},
		{Text: []string{"Resumed."}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{"sessionOps": true, "steps": []map[string]any{{"prompt": "remember teal"}}})
	if strings.Join(rep.Stops, " ") != "end_turn end_turn" {
		t.Fatalf("stops %v errors %v\nstderr:\n%s", rep.Stops, rep.Errors, stderr)
	}
	s := rep.Sessions[0]
	if len(rep.List.Sessions) != 1 || rep.List.Sessions[0].SessionID != s || rep.List.Sessions[0].Cwd != e.ws ||
		!strings.Contains(rep.List.Sessions[0].Title, "remember teal") || rep.List.Sessions[0].UpdatedAt == "" {
		t.Errorf("session/list: %+v", rep.List)
	}
	if len(rep.ListOutside.Sessions) != 0 {
		t.Errorf("session/list for /: %+v", rep.ListOutside)
	}
	if rep.AfterClose.Code != -32602 || !strings.Contains(rep.AfterClose.Data["error"].(string), "no session "+s) {
		t.Errorf("a prompt after session/close: %+v", rep.AfterClose)
	}
	if n := len(rep.updatesOf(s, "user_message_chunk")); n != 0 {
		t.Errorf("session/resume replayed %d user messages", n)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "remember teal") || !strings.Contains(string(reqs[1].Body), "after resume") {
		t.Errorf("the resumed turn does not carry the history")
	}
}
