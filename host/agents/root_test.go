package agents_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/schedule"
)

// A top-level run (a scheduled run, a child of no one) is counted by the
// gate: past MaxRoots the next waits for a slot, in the gate's
// accounting, and is refused if its context ends first; a slot given
// back admits the one waiting.
func TestRootRunsAreCountedAndWaitForASlot(t *testing.T) {
	f := newFixture(t, agents.Limits{MaxRoots: 1}, nil)
	lease := schedule.Lease{Tools: []string{"read_file"}}
	req := func(label string) agents.RootRequest {
		return agents.RootRequest{Tools: []string{"read_file"}, Judge: lease.Judge, Label: label}
	}
	a, err := f.gate.SpawnRoot(context.Background(), req("run a"))
	if err != nil {
		t.Fatal(err)
	}
	if acc := f.gate.Accounting(); len(acc.Roots) != 1 || acc.Roots[0].Label != "run a" || acc.Roots[0].Session != a.Session.ID() || !a.Session.Unattended() {
		t.Fatalf("accounting after one run: %+v", acc)
	}
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := f.gate.SpawnRoot(short, req("run b")); !errors.Is(err, agents.ErrRefused) || !strings.Contains(err.Error(), "top-level run limit: 1") {
		t.Fatalf("a second run past the limit, its context ending: %v", err)
	}
	got := make(chan *agents.Root, 1)
	go func() {
		r, err := f.gate.SpawnRoot(context.Background(), req("run c"))
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	deadline := time.Now().Add(5 * time.Second)
	for f.gate.Accounting().Waiting != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("run c is not waiting: %+v", f.gate.Accounting())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-got:
		t.Fatal("run c started while run a held the only slot")
	case <-time.After(300 * time.Millisecond):
	}
	a.End()
	a.End() // twice gives back one slot
	var c *agents.Root
	select {
	case c = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("run c did not start when run a ended")
	}
	if acc := f.gate.Accounting(); len(acc.Roots) != 1 || acc.Roots[0].Label != "run c" || acc.Waiting != 0 {
		t.Fatalf("accounting after a ended: %+v", acc)
	}
	c.End()
	if acc := f.gate.Accounting(); len(acc.Roots) != 0 {
		t.Fatalf("accounting after all ended: %+v", acc)
	}
}

// A top-level run's children go through the same gate under it: counted
// in its tree (fan-out), shown in its accounting, a depth below it.
func TestRootRunsChildrenAreItsTree(t *testing.T) {
	slow := pt.Step{Text: []string{"done"}, DelayMS: 1500}
	f := newFixture(t, agents.Limits{MaxRunning: 1}, []pt.Step{child("first", slow), child("second", pt.Step{Text: []string{"ok"}})})
	lease := schedule.Lease{Tools: []string{"read_file"}}
	r, err := f.gate.SpawnRoot(context.Background(), agents.RootRequest{Tools: []string{"read_file", "delegate_task"}, Judge: lease.Judge, Label: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.End()
	c, err := spawn(t, f, r.Session, "turn_r", agents.Request{Goal: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Depth != 1 {
		t.Fatalf("a top-level run's child is %d deep", c.Depth)
	}
	if acc := f.gate.Accounting(); len(acc.Roots) != 1 || acc.Roots[0].Children != 1 {
		t.Fatalf("accounting with a child running: %+v", acc)
	}
	if _, err := spawn(t, f, r.Session, "turn_r", agents.Request{Goal: "second"}); !errors.Is(err, agents.ErrRefused) || !strings.Contains(err.Error(), "fan-out limit") {
		t.Fatalf("a second child past the run's fan-out: %v", err)
	}
	wait(t, c)
}
