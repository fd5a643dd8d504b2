package frontview

import (
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// TestConversationReadsTheStoredShapes: sessions show reads the calls
// and results the host stores (providers' ToolCall and ToolResult, and
// its roles) without importing providers: the shapes must stay the same.
func TestConversationReadsTheStoredShapes(t *testing.T) {
	calls, _ := json.Marshal([]providers.ToolCall{{ID: "c1", Name: "read_file", Args: `{"path":"a"}`, Signature: []byte("s")}})
	results, _ := json.Marshal([]providers.ToolResult{
		{CallID: "c1", Name: "read_file", Content: "denied\nmore", IsError: true},
		{CallID: "c2", Name: "terminal", Content: `{"exit_code":2}`},
		{CallID: "c3", Name: "terminal", Content: `{"exit_code":0}`},
	})
	msgs := []runtime.MessageRecord{
		{Role: string(providers.RoleUser), Text: "hi"},
		{Role: string(providers.RoleAssistant), Text: "ok", ToolCalls: calls},
		{Role: string(providers.RoleTool), ToolResults: results},
		{Summary: true, Covers: 3, Text: "short"},
	}
	var b strings.Builder
	if err := Conversation(&b, msgs, false); err != nil {
		t.Fatal(err)
	}
	want := "you: hi\nagent: ok\n→ read_file {\"path\":\"a\"}\n" +
		"  ✗ read_file: denied (11 bytes)\n  ✗ terminal: {\"exit_code\":2} (15 bytes)\n  ✓ terminal: {\"exit_code\":0} (15 bytes)\n" +
		"[summary of messages through 3]\nshort\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
