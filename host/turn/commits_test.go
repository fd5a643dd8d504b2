package turn_test

import (
	"context"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// TestOneCommitPerReadStep: a step that reads a file costs one durable
// commit of the store (its audit event, carrying the step's messages),
// not one per message and event; the turn's start (the prompt) and end
// (the closing note) add one each.
func TestOneCommitPerReadStep(t *testing.T) {
	const steps = 10
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return calls(call("", "read_file", `{"path":"a.txt"}`)), nil
	}}
	f := newFixture(t, model)
	f.write(t, "a.txt", "hello\n")
	l := &turn.Loop{Provider: model, Session: f.h.NewSession(), Store: f.store, MaxSteps: steps}
	defer l.Close()
	ctx := context.Background()
	// The first turn records the session and warms the catalog.
	if _, err := l.Run(ctx, "warm up", &recorder{}); err != nil {
		t.Fatal(err)
	}
	before := f.store.Commits()
	res, err := l.Run(ctx, "read it ten times", &recorder{})
	if err != nil || res.Status != turn.StatusStepCap {
		t.Fatal(res, err)
	}
	if n := f.store.Commits() - before; n > steps+2 {
		t.Fatalf("%d commits for a turn of %d read steps, want at most %d", n, steps, steps+2)
	}
	msgs := f.messages(t)
	if len(msgs) != 2*(1+2*steps+1) {
		t.Fatalf("%d messages stored, want every message of both turns", len(msgs))
	}
}
