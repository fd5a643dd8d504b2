package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// TestACPEditorBuffersArePolicedTools: a client that offers fs/read_text_file
// and fs/write_text_file gets editor_read_file and editor_write_file in
// the session's catalog, and each reaches the editor only as a call the
// host admitted: the read of an unsaved buffer (auto, as read_file), a
// write allowed once (the editor's buffer changes, the disk does not), a
// write rejected and a write outside the workspace (the editor is never
// asked), each with its audit event. They are offered only where approved
// commands run unconfined anyway (here --sandbox off): under the sandbox
// the editor, which opens the path after the host checked it, would follow
// a link a sandboxed command planted meanwhile
// (TestEditorFilesOnlyWhereCommandsRunUnconfined), so a sandboxed session
// offers neither.
func TestACPEditorBuffersArePolicedTools(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	notes := filepath.Join(e.ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("saved on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := e.runHost(t, "sandbox", "status"); err == nil && strings.Contains(out, "effective mode:     workspace-write") {
		sandboxed := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"Hello."}}})
		defer sandboxed.Close()
		rep, stderr := runACPClient(t, e, dir, sandboxed.URL, map[string]any{
			"buffers": map[string]string{notes: "unsaved buffer text\n"},
			"steps":   []map[string]any{{"prompt": "hi"}}})
		if strings.Join(rep.Stops, " ") != "end_turn" {
			t.Fatalf("sandboxed: stops %v errors %v\nstderr:\n%s", rep.Stops, rep.Errors, stderr)
		}
		if b := string(sandboxed.Requests()[0].Body); strings.Contains(b, "editor_read_file") || strings.Contains(b, "editor_write_file") {
			t.Errorf("a sandboxed session offers the editor's file tools: %.500s", b)
		}
		e.stopHost(t)
	} else {
		t.Logf("no enforced sandbox here (%v): only the unconfined half runs:\n%s", err, out)
	}
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_eread", Name: "editor_read_file", Args: `{"path":"notes.txt"}`}}},
		{Text: []string{"Read."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_ewrite", Name: "editor_write_file", Args: `{"path":"notes.txt","content":"from the agent\n"}`}}},
		{Text: []string{"Written."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_eno", Name: "editor_write_file", Args: `{"path":"notes.txt","content":"rejected\n"}`}}},
		{Text: []string{"Not written."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_eout", Name: "editor_write_file", Args: `{"path":"../outside.txt","content":"out\n"}`}}},
		{Text: []string{"Outside."}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{
		"flags":   []string{"--sandbox", "off"},
		"buffers": map[string]string{notes: "unsaved buffer text\n"},
		"steps": []map[string]any{
			{"prompt": "read notes", "answers": []string{}},
			{"prompt": "write notes", "answers": []string{"allow_once"}},
			{"prompt": "write notes again", "answers": []string{"reject_once"}},
			{"prompt": "write outside", "answers": []string{"allow_once"}},
		}})
	if strings.Join(rep.Stops, " ") != "end_turn end_turn end_turn end_turn" {
		t.Fatalf("stops %v errors %v\nstderr:\n%s", rep.Stops, rep.Errors, stderr)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Body), `"editor_read_file"`) || !strings.Contains(string(reqs[0].Body), `"editor_write_file"`) {
		t.Fatalf("the editor tools are not offered to the model: %.500s", reqs[0].Body)
	}
	// The read gave the model the editor's unsaved text, not the disk's.
	if b := string(reqs[1].Body); !strings.Contains(b, "unsaved buffer text") || strings.Contains(b, "saved on disk") {
		t.Errorf("the read's result to the model: %.600s", b)
	}
	// Only the admitted calls reached the editor, with the host's
	// absolute path.
	var got []string
	for _, c := range rep.Editor {
		b, _ := json.Marshal(c.Params)
		got = append(got, c.Method+" "+string(b))
	}
	if len(rep.Editor) != 2 || rep.Editor[0].Method != "fs/read_text_file" || rep.Editor[0].Params["path"] != notes ||
		rep.Editor[1].Method != "fs/write_text_file" || rep.Editor[1].Params["path"] != notes || rep.Editor[1].Params["content"] != "from the agent\n" {
		t.Fatalf("what reached the editor:\n%s", strings.Join(got, "\n"))
	}
	if b, _ := os.ReadFile(notes); string(b) != "saved on disk\n" {
		t.Errorf("the disk file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "outside.txt")); !os.IsNotExist(err) {
		t.Errorf("outside.txt: %v", err)
	}
	s := rep.Sessions[0]
	for id, want := range map[string]string{"call_eread": "completed", "call_ewrite": "completed", "call_eno": "failed", "call_eout": "failed"} {
		if st := lastStatus(rep.callUpdates(s, id)); st != want {
			t.Errorf("%s: %s, want %s", id, st, want)
		}
	}
	// Each call has its audit event, the refused ones too.
	out, errOut, err := e.runHost(t, "--sandbox", "off", "audit", "--json", "--tool", "editor_write_file")
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, errOut)
	}
	for _, id := range []string{"call_ewrite", "call_eno", "call_eout"} {
		if !strings.Contains(out, id) {
			t.Errorf("no audit event of %s:\n%s", id, out)
		}
	}
}
