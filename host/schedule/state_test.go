package schedule

import (
	"testing"
	"time"
)

// TestPausedWhileARunIsInProgress: a schedule paused while one of its runs
// is under way reads "paused" at once (the operator's pause took; no run
// starts after it), and the run that goes on is named beside it. Unpaused,
// the same schedule reads "running".
func TestPausedWhileARunIsInProgress(t *testing.T) {
	now := time.Now()
	sc := Schedule{ID: "sch_000000000001", Paused: true, Next: now.Add(time.Minute),
		Claim: &Claim{Run: "run_1", Occurrence: now, Holder: "host", Expires: now.Add(time.Minute)}}
	if got := State(sc, now); got != "paused" {
		t.Fatalf("paused with a run under way: state %q, want paused", got)
	}
	if got := RunInProgress(sc); got != "run_1" {
		t.Fatalf("run in progress %q, want run_1", got)
	}
	if v := view(sc, now); v["state"] != "paused" || v["run_in_progress"] != "run_1" {
		t.Fatalf("the model's view: state %v, run in progress %v", v["state"], v["run_in_progress"])
	}
	sc.Paused = false
	if got := State(sc, now); got != "running" {
		t.Fatalf("a run under way: state %q, want running", got)
	}
	sc.Claim = nil
	if got := RunInProgress(sc); got != "" {
		t.Fatalf("no run under way, yet %q", got)
	}
	if _, ok := view(sc, now)["run_in_progress"]; ok {
		t.Fatal("the model's view names a run in progress when none is")
	}
}
