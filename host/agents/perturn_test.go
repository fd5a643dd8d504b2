package agents_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/turn"
)

// The per-turn limit counts the children of one model turn, across its
// steps (each step has a dispatch turn of its own): a second child in a
// later step of the same turn is refused at a limit of one, and the next
// turn may start one again.
func TestPerTurnLimitSpansTheTurnsSteps(t *testing.T) {
	parent := `"content":"parent turn`
	delegate := func(id, goal string) pt.Step {
		return pt.Step{For: parent, ToolCalls: []pt.ToolCall{{ID: id, Name: "delegate_task", Args: `{"goal":"` + goal + `","notify_policy":"wait","tools":"none"}`}}}
	}
	f := newFixture(t, agents.Limits{MaxPerTurn: 1}, []pt.Step{
		delegate("d1", "first kid"), delegate("d2", "second kid"), {For: parent, Text: []string{"one turn done"}},
		delegate("d3", "third kid"), {For: parent, Text: []string{"next turn done"}},
		child("first kid", pt.Step{Text: []string{"ok 1"}}),
		child("third kid", pt.Step{Text: []string{"ok 3"}}),
	})
	store, _ := f.h.Store()
	loop := &turn.Loop{Provider: f.model, Session: f.h.Session(), Store: store, System: "You are a test agent."}
	defer loop.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, p := range []string{"parent turn one", "parent turn two"} {
		if res, err := loop.Run(ctx, p, nil); err != nil || res.Status != turn.StatusDone {
			t.Fatalf("%s: %+v %v", p, res, err)
		}
	}
	var third, fifth string
	n := 0
	for _, r := range f.srv.Requests() {
		if body := string(r.Body); strings.Contains(body, parent) {
			n++
			switch n {
			case 3:
				third = body
			case 5:
				fifth = body
			}
		}
	}
	if !strings.Contains(third, "per-turn limit: this turn already started 1 children") {
		t.Errorf("the second child of one turn was not refused:\n%s", third)
	}
	if !strings.Contains(fifth, "ok 3") {
		t.Errorf("the next turn's child did not run:\n%s", fifth)
	}
	if rem := f.srv.Remaining(); rem != 0 {
		t.Errorf("%d scripted steps left", rem)
	}
}
