package turn_test

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// TestLostResultsAreAnsweredOnResume: a step's results ride with the next
// commit, so a host that stopped right after a step's audit commit left a
// stored reply whose calls have no results. The resumed session's next
// request answers them as not recorded (every provider refuses calls
// without results) and the turn runs.
func TestLostResultsAreAnsweredOnResume(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) { return answer("ok"), nil }}
	f := newFixture(t, model)
	ctx := context.Background()
	id := f.h.Session().ID()
	if _, err := f.store.AppendMessages(ctx, id, []runtime.MessageRecord{
		{Role: string(providers.RoleUser), Text: "read a.txt"},
		{Role: string(providers.RoleAssistant), ToolCalls: []byte(`[{"id":"call_a","name":"read_file","args":"{\"path\":\"a.txt\"}"}]`)},
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := f.loop.Run(ctx, "go on", &recorder{}); err != nil || res.Status != "done" {
		t.Fatal(res, err)
	}
	msgs := model.requests()[0].Messages
	validHistory(t, msgs)
	if len(msgs) != 4 || msgs[2].Role != providers.RoleTool || msgs[2].ToolResults[0].CallID != "call_a" ||
		!msgs[2].ToolResults[0].IsError || !strings.Contains(msgs[2].ToolResults[0].Content, "not recorded") {
		t.Fatalf("the resumed request: %+v", msgs)
	}
}
