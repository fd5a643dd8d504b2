package turn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
)

// TestCallCutAtOutputLimitToldAsCut: a step cut at the output limit whose
// last call's arguments stop mid-JSON runs its whole calls, does not run
// the cut one, and tells the model that call was cut at the limit (with
// the limit), not only that its arguments are invalid JSON.
func TestCallCutAtOutputLimitToldAsCut(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n == 1 {
			r := calls(call("c1", "read_file", `{"path":"a.txt"}`), call("c2", "write_file", `{"path":"b.txt","content":"aaaa`))
			r.Stop = providers.StopMaxTokens
			return r, nil
		}
		return answer("ok"), nil
	}}
	f := newFixture(t, model)
	f.write(t, "a.txt", "hello\n")
	f.loop.MaxOutputTokens = 4096
	if res, err := f.loop.Run(context.Background(), "copy it", &recorder{}); err != nil || res.Status != "done" {
		t.Fatal(res, err)
	}
	res := lastResults(t, model.requests()[1])
	if len(res) != 2 || res[0].IsError || !strings.Contains(res[0].Content, "hello") {
		t.Fatalf("the whole call did not run: %+v", res)
	}
	if !res[1].IsError || res[1].CallID != "c2" || !strings.Contains(res[1].Content, "cut at the output limit of 4096 tokens") {
		t.Fatalf("cut call result: %+v", res[1])
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "b.txt")); err == nil {
		t.Fatal("the cut call ran")
	}
}
