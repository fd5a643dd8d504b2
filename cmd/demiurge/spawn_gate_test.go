package main

import (
	"context"
	"testing"

	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// TestChildRunsWithItsRootsModel: a long-lived host runs several front
// ends' turns at once, each with its own model and key. A child must get
// the loop of the front end its root session belongs to, never the one
// installed last, and none once that front end's turn has ended.
func TestChildRunsWithItsRootsModel(t *testing.T) {
	h := openTestHost(t)
	a, b := h.OpenSessionAs("", false), h.OpenSessionAs("", false)
	loopOf := func(system string) func(*toolhost.Session) (*turn.Loop, error) {
		return func(child *toolhost.Session) (*turn.Loop, error) { return &turn.Loop{System: system}, nil }
	}
	releaseA := installSpawnGate(h, a, loopOf("front end A"))
	releaseB := installSpawnGate(h, b, loopOf("front end B"))
	defer releaseB()
	childOfA, err := a.Delegate(context.Background(), toolhost.Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := spawnGates.Load(h)
	loops := v.(*rootLoops)
	l, err := loops.newLoop(childOfA)
	if err != nil || l.System != "front end A" {
		t.Fatalf("child of A got %+v, %v; want front end A's loop", l, err)
	}
	releaseA()
	if l, err := loops.newLoop(childOfA); err == nil {
		t.Fatalf("child of A after A's turn ended got %q; want an error", l.System)
	}
}
