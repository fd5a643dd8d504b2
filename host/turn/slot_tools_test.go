package turn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// toolSlot is an input slot that calls read_file and write_file through
// ctx.tools.call and reports what it got as context.
const toolSlot = `def run(ctx, args):
    r = ctx.tools.call("read_file", {"path": "notes.txt"})
    w = ctx.tools.call("write_file", {"path": "out.txt", "content": "from the slot"})
    return {"context": "read %s: %s | write %s: %s" % (r["status"], r["content"].strip(), w["status"], w["content"])}
`

// toolSlotFixture opens a host over a core granting caps whose input
// stage runs toolSlot (real Python, the authored runtime, the sandbox).
func toolSlotFixture(t *testing.T, caps string, model *script) (*toolhost.Host, *turn.Loop, string) {
	t.Helper()
	h, loop, ws := openSlotCore(t, model, t.TempDir(), map[string]string{
		"agent.yaml":             "toolsets: [coding]\ncapabilities: [" + caps + "]\n",
		"pipelines.yaml":         "input: [reader]\n",
		"slots/reader/slot.yaml": "description: reads and writes through tools\n",
		"slots/reader/module.py": toolSlot,
	})
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("ship on friday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return h, loop, ws
}

// A slot's tool calls go through dispatch under the session's authority:
// a tool the session may call runs (its result reaches the slot, and
// through its context the model), a tool whose capability the session
// lacks stays denied, and no one is asked about it; each call is audited
// under a call id naming the slot.
func TestSlotToolCallsCannotExceedTheSession(t *testing.T) {
	model := &script{step: func(int, providers.Request) (providers.Reply, error) {
		return providers.Reply{Text: "done", Stop: providers.StopEndTurn}, nil
	}}
	h, loop, ws := toolSlotFixture(t, "fs.read", model)
	asker := &answerer{answer: approval.AllowOnce}
	if res, err := loop.Run(context.Background(), "hello", &recorder{approver: asker}); err != nil || res.Status != turn.StatusDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	msg := model.reqs[0].Messages[len(model.reqs[0].Messages)-1].Text
	if !strings.Contains(msg, "read ok: ") || !strings.Contains(msg, "ship on friday") || !strings.Contains(msg, `| write unknown_tool: tool "write_file" is not available in this session: it needs capability fs.write, which is not granted`) {
		t.Fatalf("the slot's context in the request:\n%s", msg)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
		t.Fatal("a slot wrote through a tool the session may not call")
	}
	if asker.count() != 0 {
		t.Fatalf("asked %d times about a call the session's capabilities refuse", asker.count())
	}
	store, _ := h.Store()
	evs, err := store.Events(runtime.EventQuery{Kind: "tool.call"})
	if err != nil || len(evs) != 2 {
		t.Fatalf("%d tool.call events, %v; want the slot's two", len(evs), err)
	}
	for _, ev := range evs {
		if !strings.HasPrefix(ev.CallID, "slot:reader:") {
			t.Errorf("a slot's call audited as %q (%s)", ev.CallID, ev.Tool)
		}
	}
}

// A slot's call that needs approval is asked of the turn's own front end
// and obeys its answer: denied stays denied, allowed runs.
func TestSlotToolCallsAreApprovedAsTheTurns(t *testing.T) {
	for _, tt := range []struct {
		answer  approval.Answer
		status  string
		written bool
	}{
		{approval.Deny, "write denied: ", false},
		{approval.AllowOnce, "write ok: ", true},
	} {
		t.Run(tt.status, func(t *testing.T) {
			model := &script{step: func(int, providers.Request) (providers.Reply, error) {
				return providers.Reply{Text: "done", Stop: providers.StopEndTurn}, nil
			}}
			_, loop, ws := toolSlotFixture(t, "fs.read, fs.write", model)
			asker := &answerer{answer: tt.answer}
			if res, err := loop.Run(context.Background(), "hello", &recorder{approver: asker}); err != nil || res.Status != turn.StatusDone {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			msg := model.reqs[0].Messages[len(model.reqs[0].Messages)-1].Text
			if !strings.Contains(msg, tt.status) {
				t.Fatalf("want %q in the slot's context:\n%s", tt.status, msg)
			}
			if asker.count() != 1 || asker.asked[0] != "write_file" {
				t.Fatalf("asked %v; want write_file once", asker.asked)
			}
			_, err := os.Stat(filepath.Join(ws, "out.txt"))
			if (err == nil) != tt.written {
				t.Fatalf("written = %v, want %v", err == nil, tt.written)
			}
		})
	}
}
