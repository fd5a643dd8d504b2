package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

func TestDueRunFiresOnceAndIdleHasNoTimer(t *testing.T) {
	r := newRig(t)
	if n := r.clock.pending(); n != 0 {
		t.Fatalf("no schedule: %d timers armed, want none", n)
	}
	sc := r.create(Spec{EverySeconds: ptr(int64(60))})
	if n := r.clock.pending(); n != 1 {
		t.Fatalf("one schedule: %d timers armed, want exactly one", n)
	}
	if w := r.eng.NextWake(); !w.Equal(t0.Add(time.Minute)) {
		t.Fatalf("timer set for %s, want the due time %s", w, t0.Add(time.Minute))
	}
	r.clock.Advance(59 * time.Second)
	if r.ex.count() != 0 || r.eng.Wakes() != 0 {
		t.Fatalf("woke before the due time: %d runs, %d wakes", r.ex.count(), r.eng.Wakes())
	}
	r.clock.Advance(time.Second)
	r.waitIdle()
	if got := outcomes(r.runs(sc.ID)); !slices.Equal(got, []Outcome{OutcomeOK}) || r.eng.Wakes() != 1 {
		t.Fatalf("runs %v after %d wakes, want one ok run after one wake", got, r.eng.Wakes())
	}
	// The same instant again (a second wake, a restart) runs nothing more.
	r.eng.RunDue(context.Background())
	r.waitIdle()
	if n := r.ex.count(); n != 1 {
		t.Fatalf("the occurrence ran %d times", n)
	}
	cur, _ := r.mgr.Store.Get(sc.ID)
	if !cur.Next.Equal(t0.Add(2*time.Minute)) || cur.Claim != nil || cur.Last != OutcomeOK {
		t.Fatalf("after the run: next %s claim %v last %s", cur.Next, cur.Claim, cur.Last)
	}
	// Deleting the last schedule leaves no timer.
	if err := r.mgr.Delete(context.Background(), sc.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n := r.clock.pending(); n != 0 {
		t.Fatalf("after delete: %d timers armed", n)
	}
}

func TestRunIsAuditedWithItsOutcome(t *testing.T) {
	r := newRig(t)
	sc := r.create(Spec{EverySeconds: ptr(int64(60))})
	r.clock.Advance(time.Minute)
	r.waitIdle()
	evs, err := r.rt.Events(runtime.EventQuery{Kind: "schedule.run"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("%d schedule.run events, want 1", len(evs))
	}
	var d map[string]any
	_ = json.Unmarshal(evs[0].Data, &d)
	if d["schedule"] != sc.ID || d["outcome"] != "ok" {
		t.Fatalf("event data %v", d)
	}
}

func TestMissedRunsCollapse(t *testing.T) {
	for _, policy := range []string{MissedCatchUp, MissedSkip} {
		t.Run(policy, func(t *testing.T) {
			r := newRig(t)
			sc := r.create(Spec{Cron: ptr("0 * * * *"), Missed: ptr(policy), GraceSeconds: ptr(int64(300))})
			// Five hours and ten minutes pass in one jump (a suspended
			// laptop; the clock jumps forward): five occurrences late.
			r.clock.Advance(5*time.Hour + 10*time.Minute)
			r.waitIdle()
			runs := r.runs(sc.ID)
			if len(runs) != 1 {
				t.Fatalf("%d run records, want the backlog collapsed into one: %+v", len(runs), runs)
			}
			want := OutcomeMissed
			if policy == MissedCatchUp {
				want = OutcomeOK
				if !runs[0].CatchUp || r.ex.count() != 1 {
					t.Errorf("catch-up run %+v, %d executed", runs[0], r.ex.count())
				}
			} else if r.ex.count() != 0 {
				t.Errorf("skip policy executed %d runs", r.ex.count())
			}
			if runs[0].Outcome != want || runs[0].Missed != 5 {
				t.Errorf("run %+v, want outcome %s standing for 5 occurrences", runs[0], want)
			}
			cur, _ := r.mgr.Store.Get(sc.ID)
			if want := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC); !cur.Next.Equal(want) {
				t.Errorf("next %s, want %s (the first after now)", cur.Next, want)
			}
		})
	}
}

func TestLateWithinGraceRuns(t *testing.T) {
	r := newRig(t)
	sc := r.create(Spec{EverySeconds: ptr(int64(3600)), GraceSeconds: ptr(int64(600))})
	r.clock.Advance(time.Hour + 9*time.Minute)
	r.waitIdle()
	if runs := r.runs(sc.ID); len(runs) != 1 || runs[0].Outcome != OutcomeOK || runs[0].CatchUp {
		t.Fatalf("runs %+v, want one ordinary late run", runs)
	}
}

func TestClockJumpBackRunsNothingTwice(t *testing.T) {
	r := newRig(t)
	sc := r.create(Spec{EverySeconds: ptr(int64(600))})
	r.clock.Advance(10 * time.Minute)
	r.waitIdle()
	r.clock.Set(t0.Add(-time.Hour)) // the wall clock goes back an hour
	r.eng.Arm()
	r.clock.Advance(30 * time.Minute)
	r.waitIdle()
	if n := r.ex.count(); n != 1 {
		t.Fatalf("%d runs after the clock went back, want the one before", n)
	}
	r.clock.Set(t0.Add(20 * time.Minute))
	r.waitIdle()
	if runs := r.runs(sc.ID); len(runs) != 2 {
		t.Fatalf("%d runs once the clock reached the next occurrence, want 2", len(runs))
	}
}

func TestOverlapPolicies(t *testing.T) {
	for _, c := range []struct {
		policy string
		want   []Outcome // oldest first
	}{
		{OverlapSkip, []Outcome{OutcomeOK, OutcomeSkippedOverlap}},
		{OverlapQueue, []Outcome{OutcomeOK, OutcomeOK}},
		{OverlapCancel, []Outcome{OutcomeCancelled, OutcomeOK}},
	} {
		t.Run(c.policy, func(t *testing.T) {
			r := newRig(t)
			r.ex.started = make(chan Run, 4)
			r.ex.release = make(chan struct{})
			sc := r.create(Spec{EverySeconds: ptr(int64(60)), Overlap: ptr(c.policy)})
			r.clock.Advance(time.Minute)
			<-r.ex.started
			go r.clock.Advance(time.Minute) // cancel waits for the first to end
			if c.policy == OverlapCancel {
				<-r.ex.started
			} else {
				deadline := time.Now().Add(5 * time.Second)
				for len(r.runs(sc.ID)) == 0 && c.policy == OverlapSkip && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
			}
			close(r.ex.release)
			r.waitIdle()
			time.Sleep(20 * time.Millisecond)
			r.waitIdle()
			if got := outcomes(r.runs(sc.ID)); !slices.Equal(got, c.want) {
				t.Fatalf("outcomes %v, want %v", got, c.want)
			}
		})
	}
}

func TestLeaseGatesEveryRun(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	// Not approved: created by the model, never approved by the operator.
	sc, err := r.mgr.Create(ctx, Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), GraceSeconds: ptr(int64(MaxGrace)), Lease: &LeaseSpec{Tools: []string{"read_file"}}}, "p", "s")
	if err != nil {
		t.Fatal(err)
	}
	step := func(want string) { t.Helper(); r.stepRun(sc.ID, want) }
	step("the lease is not approved")
	if _, err := r.approve(sc.ID, 1); err != nil {
		t.Fatal(err)
	}
	step("")
	// The catalog changes between approval and run: blocked until renewed.
	r.env.catalog = "cat2"
	step("the catalog changed")
	step("the catalog changed")
	r.approve(sc.ID, 1)
	step("")
	r.env.revision = "rev2"
	step("core \"main\" changed")
	r.approve(sc.ID, 1)
	step("")
	// The lease expires.
	r.clock.Advance(24 * time.Hour)
	r.waitIdle()
	if last := r.runs(sc.ID)[0]; last.Outcome != OutcomeBlocked || !strings.Contains(last.Reason, "expired") {
		t.Fatalf("after the expiry: %s %q", last.Outcome, last.Reason)
	}
	if n := r.ex.count(); n != 3 {
		t.Fatalf("%d runs executed, want the 3 with a valid lease", n)
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), CoreID: ptr("nosuch")}, `core_id "nosuch" does not exist in this host; known cores: main`},
		{Spec{Prompt: ptr("p"), Cron: ptr("0 7 * *")}, "expected exactly 5 fields"},
		{Spec{Prompt: ptr("p"), Cron: ptr("0 7 * * *"), Zone: ptr("Europe/Berln")}, "not a known IANA time zone"},
		{Spec{Prompt: ptr("p")}, "give when it runs"},
		{Spec{EverySeconds: ptr(int64(60))}, "prompt is required"},
		{Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), Tools: []string{ToolName}}, "never gets schedule_manage"},
		{Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), Lease: &LeaseSpec{Tools: []string{ToolName}}}, "never gets schedule_manage"},
		{Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), Lease: &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"../etc/**"}}}, "workspace-relative"},
		{Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), Overlap: ptr("parallel")}, "overlap must be skip, queue or cancel"},
		{Spec{Prompt: ptr("p"), At: ptr("2020-01-01T00:00:00Z")}, "not in the future"},
		{Spec{Prompt: ptr("p"), At: ptr("tomorrow")}, "RFC 3339"},
	} {
		_, err := r.mgr.Create(context.Background(), c.spec, "p", "s")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create = %v; want %q", err, c.want)
		}
	}
	if all, _ := r.mgr.Store.List(); len(all) != 0 {
		t.Fatalf("refused creates stored %d schedules", len(all))
	}
}

func TestPauseAllStopsTheTimerAndLeavesNoBacklog(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	sc := r.create(Spec{EverySeconds: ptr(int64(60)), Missed: ptr(MissedCatchUp)})
	if err := r.mgr.PauseAll(ctx, true, "operator"); err != nil {
		t.Fatal(err)
	}
	if n := r.clock.pending(); n != 0 {
		t.Fatalf("paused: %d timers", n)
	}
	r.clock.Advance(time.Hour)
	r.mgr.PauseAll(ctx, false, "operator")
	r.clock.Advance(0)
	r.waitIdle()
	if n := len(r.runs(sc.ID)); n != 0 {
		t.Fatalf("the paused hour became %d runs", n)
	}
	r.clock.Advance(time.Minute)
	r.waitIdle()
	if n := len(r.runs(sc.ID)); n != 1 {
		t.Fatalf("after resume-all: %d runs, want 1", n)
	}
	// One schedule paused, then resumed: the same.
	r.mgr.SetPaused(ctx, sc.ID, true, "")
	r.clock.Advance(time.Hour)
	r.mgr.SetPaused(ctx, sc.ID, false, "")
	r.clock.Advance(0)
	r.waitIdle()
	if n := len(r.runs(sc.ID)); n != 1 {
		t.Fatalf("the paused hour became %d runs", n-1)
	}
}

func TestRunNowAndOneShot(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	sc := r.create(Spec{At: ptr(t0.Add(time.Hour).Format(time.RFC3339))})
	if err := r.eng.RunNow(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle()
	r.clock.Advance(time.Hour)
	r.waitIdle()
	r.clock.Advance(24 * time.Hour)
	r.waitIdle()
	runs := r.runs(sc.ID)
	if len(runs) != 2 || !runs[1].Manual || runs[0].Manual {
		t.Fatalf("runs %+v, want the manual one and the one-shot's", runs)
	}
	if cur, _ := r.mgr.Store.Get(sc.ID); !cur.Next.IsZero() || r.clock.pending() != 0 {
		t.Fatalf("a one-shot that ran: next %s, %d timers", cur.Next, r.clock.pending())
	}
	if err := r.eng.RunNow(ctx, "sch_nosuch"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("run-now of an unknown id: %v", err)
	}
}

// A host killed mid-run leaves its claim: the next host records that run
// failed, once, and the next occurrence fires as usual.
func TestHostKilledMidRunRecordedOnceThenNextFires(t *testing.T) {
	clock := &manualClock{now: t0}
	hung := &execs{started: make(chan Run, 1), release: make(chan struct{})}
	first := openRig(t, t.TempDir()+"/state.db", clock, hung)
	sc := first.create(Spec{EverySeconds: ptr(int64(600))})
	clock.Advance(10 * time.Minute)
	claimed := <-hung.started
	// The "kill": the store goes away under the running run, nothing of
	// the run's end is written (a SIGKILL writes nothing either).
	path := first.path
	first.rt.Close()
	first.rt = nil
	close(hung.release)
	time.Sleep(20 * time.Millisecond)

	clock.Advance(2 * time.Minute)
	second := openRig(t, path, clock, &execs{})
	runs := second.runs(sc.ID)
	if len(runs) != 1 || runs[0].ID != claimed.ID || runs[0].Outcome != OutcomeError || !strings.Contains(runs[0].Reason, "ended during the run") {
		t.Fatalf("after restart: %+v, want the claimed run recorded failed", runs)
	}
	second.close()
	third := openRig(t, path, clock, &execs{})
	if n := len(third.runs(sc.ID)); n != 1 {
		t.Fatalf("a second restart recorded it again: %d runs", n)
	}
	clock.Advance(8 * time.Minute)
	third.waitIdle()
	if got := outcomes(third.runs(sc.ID)); !slices.Equal(got, []Outcome{OutcomeError, OutcomeOK}) {
		t.Fatalf("outcomes %v, want the failed one then the next occurrence ok", got)
	}
}

// A claim another live holder holds is respected: the occurrence does
// not run twice (two engines on one store, one not exclusive).
func TestClaimGuardsAnOccurrence(t *testing.T) {
	r := newRig(t)
	sc := r.create(Spec{EverySeconds: ptr(int64(60))})
	_, err := r.mgr.Store.Update(context.Background(), sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		s.Claim = &Claim{Run: "run_other", Occurrence: s.Next, Holder: "other-host", Expires: t0.Add(time.Hour)}
		return nil, false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Minute)
	r.waitIdle()
	if n := r.ex.count(); n != 0 {
		t.Fatalf("ran %d times under another holder's live claim", n)
	}
}

func TestOutcomeSetIsClosed(t *testing.T) {
	want := []string{"ok", "error", "blocked", "skipped_overlap", "missed", "cancelled", "timeout", "budget_exceeded"}
	for i, o := range Outcomes {
		if string(o) != want[i] || !o.Valid() {
			t.Fatalf("outcome %d is %q", i, o)
		}
	}
	r := newRig(t)
	r.ex.result = Result{Outcome: "great"}
	sc := r.create(Spec{EverySeconds: ptr(int64(60))})
	r.clock.Advance(time.Minute)
	r.waitIdle()
	if last := r.runs(sc.ID)[0]; last.Outcome != OutcomeError || !strings.Contains(last.Reason, "outside the closed set") {
		t.Fatalf("an unknown outcome was recorded as %s", last.Outcome)
	}
}

// A run that outlives its wall-time budget ends as timeout; one whose
// schedule is deleted while it runs ends as cancelled.
func TestTimeoutAndDeleteEndRuns(t *testing.T) {
	r := newRig(t)
	r.ex.release = make(chan struct{}) // never released: only the context ends it
	r.ex.started = make(chan Run, 2)
	sc := r.create(Spec{EverySeconds: ptr(int64(60)), Budget: &Budget{WallSeconds: 1}})
	r.clock.Advance(time.Minute)
	<-r.ex.started
	r.waitIdle()
	if last := r.runs(sc.ID)[0]; last.Outcome != OutcomeTimeout || !strings.Contains(last.Reason, "wall-time budget of 1s") {
		t.Fatalf("run %s %q, want timeout", last.Outcome, last.Reason)
	}
	other := r.create(Spec{EverySeconds: ptr(int64(600))})
	r.clock.Advance(10 * time.Minute)
	<-r.ex.started // other's (sc's occurrences are beyond its grace: missed)
	if err := r.mgr.Delete(context.Background(), other.ID, ""); err != nil {
		t.Fatal(err)
	}
	evs, err := r.rt.Events(runtime.EventQuery{Kind: "schedule.run"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range evs {
		var d map[string]any
		_ = json.Unmarshal(ev.Data, &d)
		if d["schedule"] == other.ID && d["outcome"] == "cancelled" && strings.Contains(d["reason"].(string), "deleted") {
			found = true
		}
	}
	if !found {
		t.Fatal("the deleted schedule's running run was not audited as cancelled")
	}
}

// TestLeaseIsBoundToTheWorkspaceItWasApprovedFor: one state serves several
// projects in turn (an idle host is replaced by one of another workspace),
// and a lease's paths are relative to the workspace it was approved in. A
// host of another workspace records the run blocked, naming both, and
// executes nothing until the operator approves it there.
func TestLeaseIsBoundToTheWorkspaceItWasApprovedFor(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	r.env.workspace = "/projects/a"
	sc, err := r.mgr.Create(ctx, Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(60)), GraceSeconds: ptr(int64(MaxGrace)), Lease: &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"secret/**"}}}, "p", "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.approve(sc.ID, 1); err != nil {
		t.Fatal(err)
	}
	step := func(want string) { t.Helper(); r.stepRun(sc.ID, want) }
	step("")
	r.env.mu.Lock()
	r.env.workspace = "/projects/b"
	r.env.mu.Unlock()
	step(`approved for the workspace "/projects/a" and this host's is "/projects/b"`)
	if n := r.ex.count(); n != 1 {
		t.Fatalf("%d runs executed, want only the one in the approved workspace", n)
	}
	r.approve(sc.ID, 1)
	step("")
}

// TestARefusedScheduleGrowsOneRecord: a schedule the operator never
// approved (the model can make thousands) fires blocked at its timing,
// every second at most; one record and one audit event stand for the
// run of identical refusals, so the store does not grow with time. A
// different outcome starts a new record.
func TestARefusedScheduleGrowsOneRecord(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	sc, err := r.mgr.Create(ctx, Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(1)),
		Lease: &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"ci/**"}}}, "operator", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		r.clock.Advance(time.Second)
		r.waitIdle()
	}
	runs := r.runs(sc.ID)
	if len(runs) != 1 || runs[0].Outcome != OutcomeBlocked || runs[0].Repeats < 250 {
		t.Fatalf("300 blocked occurrences: %d records (first %+v), want one standing for them", len(runs), runs[0])
	}
	evs, err := r.rt.Events(runtime.EventQuery{Kind: "schedule.run"})
	if err != nil || len(evs) != 1 {
		t.Fatalf("%d schedule.run events (%v), want 1", len(evs), err)
	}
	// Approved, it runs: a new record; refused again after, a new one.
	if _, err := r.approve(sc.ID, 1); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(time.Second)
	r.waitIdle()
	if runs := r.runs(sc.ID); len(runs) != 2 || runs[0].Outcome != OutcomeOK {
		t.Fatalf("after approval: %+v", runs)
	}
}
