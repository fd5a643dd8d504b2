package turn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
)

// TestCallCapCountsTheWholeTurn: the cap on tool calls is the turn's, as
// the seed says and its message tells the model, not each model step's.
// 40 calls in one step and 30 in the next: the 65th and later are refused;
// the next turn starts a fresh count.
func TestCallCapCountsTheWholeTurn(t *testing.T) {
	step := func(prefix string, k int) providers.Reply {
		var cs []providers.ToolCall
		for i := range k {
			cs = append(cs, call(fmt.Sprintf("%s%d", prefix, i), "read_file", `{"path":"x.txt"}`))
		}
		return calls(cs...)
	}
	var second, third []providers.ToolResult
	model := &script{uncounted: true, step: func(n int, req providers.Request) (providers.Reply, error) {
		switch n {
		case 1:
			return step("a", 40), nil
		case 2:
			return step("b", 30), nil
		case 3:
			second = lastResults(t, req)
			return answer("ok"), nil
		case 4:
			return step("c", 1), nil
		}
		third = lastResults(t, req)
		return answer("ok"), nil
	}}
	f := newFixture(t, model)
	f.write(t, "x.txt", "text\n")
	for range 2 {
		if _, err := f.loop.Run(context.Background(), "read a lot", &recorder{}); err != nil {
			t.Fatal(err)
		}
	}
	within := dispatch.DefaultMaxCalls - 40
	for i, r := range second {
		capped := strings.Contains(r.Content, "the most a turn may make")
		if capped != (i >= within) {
			t.Fatalf("second step, call %d (call %d of the turn): capped %v: %s", i+1, 40+i+1, capped, r.Content)
		}
	}
	if len(third) != 1 || third[0].IsError {
		t.Fatalf("the next turn's first call: %+v", third)
	}
}
