package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// acpDiffOf is the diff content of an update or a permission request's
// tool call, nil when there is none.
func acpDiffOf(content any) map[string]any {
	items, _ := content.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == "diff" {
			return m
		}
	}
	return nil
}

// TestACPDiffsCarryTheOldText: the editor's diff of a write holds the
// file's whole text before and after, read and redacted by the host, for
// writes far over the 300 bytes at which turn events cut arguments: in
// the permission request and in the completed update, for write_file and
// for patch; a credential in the old or the new text never reaches the
// editor; a write to a file over the cap (approval.MaxEditText) gets no
// diff and still runs.
func TestACPDiffsCarryTheOldText(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	const oldKey, newKey = "AKIAABCDEFGHIJKLMNOP", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	old := strings.Repeat("an old line of the file\n", 40) + "key = " + oldKey + "\n"
	if err := os.WriteFile(filepath.Join(e.ws, "big.txt"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	content := strings.Repeat("a new line of the file\n", 50) + "token = " + newKey + "\n"
	// A file over the cap, overwritten with a short text.
	if err := os.WriteFile(filepath.Join(e.ws, "huge.txt"), []byte(strings.Repeat("x", 300<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	arg := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_big", Name: "write_file", Args: `{"path":"big.txt","content":` + arg(content) + `}`}}},
		{Text: []string{"Written."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_patch", Name: "patch", Args: `{"path":"big.txt","old_string":"a new line of the file\ntoken","new_string":"THE LAST LINE\ntoken"}`}}},
		{Text: []string{"Patched."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_huge", Name: "write_file", Args: `{"path":"huge.txt","content":"short\n"}`}}},
		{Text: []string{"Huge."}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{"steps": []map[string]any{
		{"prompt": "rewrite big.txt", "answers": []string{"allow_once"}},
		{"prompt": "patch big.txt", "answers": []string{"allow_once"}},
		{"prompt": "write huge.txt", "answers": []string{"allow_once"}},
	}})
	if strings.Join(rep.Stops, " ") != "end_turn end_turn end_turn" || len(rep.Permissions) != 3 {
		var calls []string
		for _, u := range rep.Updates {
			if u.Update["sessionUpdate"] == "tool_call_update" || u.Update["sessionUpdate"] == "tool_call" {
				b, _ := json.Marshal(u.Update["content"])
				calls = append(calls, fmt.Sprintf("%v %v %.300s", u.Update["toolCallId"], u.Update["status"], b))
			}
		}
		t.Fatalf("stops %v errors %v permissions %d\ncalls:\n%s\nstderr:\n%s", rep.Stops, rep.Errors, len(rep.Permissions), strings.Join(calls, "\n"), stderr)
	}
	s := rep.Sessions[0]
	path := filepath.Join(e.ws, "big.txt")
	redacted := func(text, key string) string { return strings.ReplaceAll(text, key, "<redacted:") }
	check := func(what string, d map[string]any, wantOld, wantNew string) {
		t.Helper()
		if d == nil {
			t.Errorf("%s: no diff", what)
			return
		}
		b, _ := json.Marshal(d)
		if strings.Contains(string(b), oldKey) || strings.Contains(string(b), newKey) {
			t.Errorf("%s: a credential reached the editor: %s", what, b)
		}
		gotOld, _ := d["oldText"].(string)
		gotNew, _ := d["newText"].(string)
		if d["path"] != path || !strings.HasPrefix(gotOld, wantOld[:strings.Index(wantOld, "<redacted:")]) || !strings.Contains(gotOld, "<redacted:") ||
			!strings.HasPrefix(gotNew, wantNew[:strings.Index(wantNew, "<redacted:")]) || !strings.Contains(gotNew, "<redacted:") {
			t.Errorf("%s: diff %.400s", what, b)
		}
	}
	// write_file: the file before and the content, in full.
	wantOld, wantNew := redacted(old, oldKey), redacted(content, newKey)
	check("write_file's permission request", acpDiffOf(rep.Permissions[0].Params.ToolCall.Content), wantOld, wantNew)
	big := rep.callUpdates(s, "call_big")
	if lastStatus(big) != "completed" {
		t.Fatalf("call_big: %v", big)
	}
	check("write_file's completed update", acpDiffOf(big[len(big)-1]["content"]), wantOld, wantNew)
	if d := acpDiffOf(big[len(big)-1]["content"]); d != nil && len(d["newText"].(string)) < len(content)-len(newKey) {
		t.Errorf("the new text was cut: %d bytes", len(d["newText"].(string)))
	}
	// patch: the whole file before and after, not the fragments.
	patched := strings.Replace(content, "a new line of the file\ntoken", "THE LAST LINE\ntoken", 1)
	check("patch's permission request", acpDiffOf(rep.Permissions[1].Params.ToolCall.Content), wantNew, redacted(patched, newKey))
	pu := rep.callUpdates(s, "call_patch")
	if lastStatus(pu) != "completed" {
		t.Fatalf("call_patch: %v", pu)
	}
	check("patch's completed update", acpDiffOf(pu[len(pu)-1]["content"]), wantNew, redacted(patched, newKey))
	if b, _ := os.ReadFile(path); string(b) != patched {
		t.Errorf("big.txt: %.200q", b)
	}
	// Over the cap: no diff anywhere, and the write runs.
	hu := rep.callUpdates(s, "call_huge")
	if acpDiffOf(rep.Permissions[2].Params.ToolCall.Content) != nil || lastStatus(hu) != "completed" || acpDiffOf(hu[len(hu)-1]["content"]) != nil {
		t.Errorf("the write over the cap: %v", hu)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "huge.txt")); err != nil || string(b) != "short\n" {
		t.Errorf("huge.txt: %.100q %v", b, err)
	}
}
