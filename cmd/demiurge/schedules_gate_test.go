package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/schedule"
)

// A scheduled run is a child of no one through the host's one spawn
// gate: while the gate's only top-level slot is held, a run waits and
// (its time ending) never reaches the model; with the slot free it runs,
// shown in the gate's accounting while it does, with its lease kept.
func TestScheduledRunGoesThroughTheSpawnGate(t *testing.T) {
	h := openTestHost(t)
	srv := pt.NewServer(pt.KindAnthropic, []pt.Step{{Text: []string{"all green"}, DelayMS: 800}})
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	flags := modelFlagValues{Model: "anthropic:claude-test", BaseURL: srv.URL}
	env := &hostScheduleEnv{h: h}
	sc := schedule.Schedule{ID: "sch_t", Prompt: "summarise", CoreID: env.coreName(), Budget: schedule.Budget{Steps: 3},
		Lease: schedule.Lease{Tools: []string{"read_file"}}}

	gate, _ := spawnGateOf(h)
	gate.Limits.MaxRoots = 1
	held, err := gate.SpawnRoot(context.Background(), agents.RootRequest{Label: "held"})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	res := runScheduled(short, env, flags, sc, schedule.Run{ID: "run_1"})
	if res.Outcome != schedule.OutcomeCancelled || !strings.Contains(res.Reason, "top-level run limit: 1") {
		t.Fatalf("a run while the gate's slot is held: %+v", res)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a run the gate did not admit made %d model requests", n)
	}
	held.End()

	done := make(chan schedule.Result, 1)
	go func() { done <- runScheduled(context.Background(), env, flags, sc, schedule.Run{ID: "run_2"}) }()
	seen := false
	for deadline := time.Now().Add(10 * time.Second); !seen && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, r := range gate.Accounting().Roots {
			seen = seen || r.Label == "schedule sch_t run run_2"
		}
	}
	if !seen {
		t.Fatalf("the scheduled run is not in the gate's accounting: %+v", gate.Accounting())
	}
	res = <-done
	if res.Outcome != schedule.OutcomeOK || res.Answer != "all green" {
		t.Fatalf("the admitted run: %+v", res)
	}
	if acc := gate.Accounting(); len(acc.Roots) != 0 || acc.Waiting != 0 {
		t.Fatalf("the gate still counts a run that ended: %+v", acc)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || strings.Contains(string(reqs[0].Body), "schedule_manage") || !strings.Contains(string(reqs[0].Body), "read_file") {
		t.Fatalf("the run's model request: %d requests", len(reqs))
	}
}
