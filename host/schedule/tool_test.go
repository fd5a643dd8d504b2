package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestToolCallsAreCheckedAndScoped(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	me := Caller{Principal: "alice", Session: "ses_a"}
	out, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"create","prompt":"p","cron":"0 7 * * 1-5","zone":"Europe/Berlin","lease":{"tools":["read_file"],"paths":["ci/**"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Schedule map[string]any `json:"schedule"`
		Content  string         `json:"content"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	id, _ := created.Schedule["id"].(string)
	if id == "" || !strings.Contains(created.Content, "demiurge schedules approve "+id) {
		t.Fatalf("create answered %s", out)
	}
	for _, c := range []struct {
		caller Caller
		args   string
		want   string
	}{
		// A scheduled run never manages schedules, whatever it asks.
		{Caller{Principal: "alice", Unattended: true}, `{"action":"list"}`, "a scheduled run never manages schedules"},
		{me, `{"action":"create","prompt":"p","cron":"0 7 * * 1-5","surprise":1}`, `unknown field "surprise"`},
		{me, `{"action":"explode"}`, `unknown action "explode"`},
		{me, `{}`, "action is required"},
		{me, `{"action":"show"}`, "show needs id"},
		{me, `{"action":"create","prompt":"p","cron":"0 25 * * *"}`, "above maximum"},
		{me, `{"action":"create","prompt":"p","every_seconds":60,"core_id":"other"}`, `core_id "other" does not exist`},
		// Another principal's schedule answers like a missing one.
		{Caller{Principal: "mallory", Session: "ses_m"}, `{"action":"delete","id":"` + id + `"}`, "no such schedule"},
		{Caller{Principal: "mallory", Session: "ses_m"}, `{"action":"run_now","id":"` + id + `"}`, "no such schedule"},
	} {
		_, err := r.mgr.HandleTool(ctx, c.caller, []byte(c.args))
		if err == nil || !Refused(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want a refusal naming %q", c.caller.Principal, c.args, err, c.want)
		}
	}
	if _, err := r.mgr.Store.Get(id); err != nil {
		t.Fatalf("mallory's delete removed alice's schedule: %v", err)
	}
	// The model's update of the lease drops the operator's approval.
	if _, err := r.approve(id, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"update","id":"`+id+`","lease":{"tools":["read_file","write_file"],"paths":["**"]}}`)); err != nil {
		t.Fatal(err)
	}
	if sc, _ := r.mgr.Store.Get(id); sc.Lease.Approved() {
		t.Fatal("a lease the model widened kept the operator's approval")
	}
	if _, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"delete","id":"`+id+`"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mgr.Store.Get(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

// TestModelCannotReachOrWidenWhatItDoesNotOwn is the model's attack on
// schedule_manage (stop 48): another principal's schedule cannot be shown,
// updated, paused or resumed (it answers like a missing one, and stays as
// it was); ids with path characters name nothing; a spec cannot carry a
// principal, session, approval or binding of its own; timing and budgets
// past their bounds are refused; and a model's change of core_id or tools
// drops the operator's approval, as a changed lease does.
func TestModelCannotReachOrWidenWhatItDoesNotOwn(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	alice := Caller{Principal: "alice", Session: "ses_a"}
	mallory := Caller{Principal: "mallory", Session: "ses_m"}
	out, err := r.mgr.HandleTool(ctx, alice, []byte(`{"action":"create","prompt":"p","every_seconds":3600,"tools":["read_file"],"lease":{"tools":["read_file"],"paths":["ci/**"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Schedule map[string]any `json:"schedule"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	id, _ := created.Schedule["id"].(string)
	if _, err := r.approve(id, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		caller Caller
		args   string
		want   string
	}{
		{mallory, `{"action":"show","id":"` + id + `"}`, "no such schedule"},
		{mallory, `{"action":"update","id":"` + id + `","prompt":"mine now"}`, "no such schedule"},
		{mallory, `{"action":"pause","id":"` + id + `"}`, "no such schedule"},
		{mallory, `{"action":"resume","id":"` + id + `"}`, "no such schedule"},
		{alice, `{"action":"show","id":"../` + id + `"}`, "no such schedule"},
		{alice, `{"action":"delete","id":"` + id + `/.."}`, "no such schedule"},
		{alice, `{"action":"update","id":"` + id + `","principal":"mallory"}`, `unknown field "principal"`},
		{alice, `{"action":"update","id":"` + id + `","session":"ses_x"}`, `unknown field "session"`},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"lease":{"tools":["read_file"],"approved_by":"operator"}}`, `unknown field "approved_by"`},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"lease":{"tools":["read_file"],"core_revision":"rev1"}}`, `unknown field "core_revision"`},
		{alice, `{"action":"create","prompt":"p","every_seconds":0}`, "every_seconds"},
		{alice, `{"action":"create","prompt":"p","every_seconds":-5}`, "every_seconds"},
		{alice, `{"action":"create","prompt":"p","cron":"@every 1ns"}`, "cron"},
		{alice, `{"action":"create","prompt":"p","cron":"* * * * * *"}`, "exactly 5 fields"},
		{alice, `{"action":"create","prompt":"p","cron":"TZ=UTC * * * * *"}`, "TZ"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"budget":{"steps":100000}}`, "budget"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"budget":{"wall_seconds":-1}}`, "budget"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"lease":{"tools":["read_file"],"expires_in_days":10000}}`, "expires_in_days"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"core_id":"../main"}`, "does not exist"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"result_file":"/etc/passwd"}`, "workspace-relative"},
		{alice, `{"action":"create","prompt":"p","every_seconds":60,"result_file":"a/../../x"}`, "workspace-relative"},
	} {
		_, err := r.mgr.HandleTool(ctx, c.caller, []byte(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want a refusal naming %q", c.caller.Principal, c.args, err, c.want)
		}
	}
	sc, err := r.mgr.Store.Get(id)
	if err != nil || sc.Prompt != "p" || sc.Paused || sc.Principal != "alice" || sc.Session != "ses_a" || !sc.Lease.Approved() {
		t.Fatalf("alice's schedule changed under the refused calls: %+v %v", sc, err)
	}
	// A model's widening of its tools drops the approval.
	if _, err := r.mgr.HandleTool(ctx, alice, []byte(`{"action":"update","id":"`+id+`","tools":["read_file","write_file"]}`)); err != nil {
		t.Fatal(err)
	}
	if sc, _ := r.mgr.Store.Get(id); sc.Lease.Approved() {
		t.Fatal("tools the approved lease lacks kept the operator's approval")
	}
	if all, _ := r.mgr.Store.List(); len(all) != 1 {
		t.Fatalf("refused creates stored schedules: %d", len(all))
	}
}

// TestTheOperatorsPauseIsTheOperatorsToLift: a schedule the operator
// paused (`demiurge schedules pause`) is not resumed by the model's
// schedule_manage resume, which is refused and changes nothing; the
// model's own pause it may lift itself, and the operator's resume lifts
// either. A call without a session is never taken for the operator.
func TestTheOperatorsPauseIsTheOperatorsToLift(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	alice := Caller{Principal: "alice", Session: "ses_a"}
	out, err := r.mgr.HandleTool(ctx, alice, []byte(`{"action":"create","prompt":"p","every_seconds":3600,"lease":{"tools":["read_file"],"paths":["ci/**"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Schedule map[string]any `json:"schedule"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	id, _ := created.Schedule["id"].(string)
	call := func(c Caller, action string) error {
		_, err := r.mgr.HandleTool(ctx, c, []byte(`{"action":"`+action+`","id":"`+id+`"}`))
		return err
	}
	paused := func() bool {
		sc, err := r.mgr.Store.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		return sc.Paused
	}
	// The model pauses and resumes its own pause.
	if call(alice, "pause") != nil || !paused() || call(alice, "resume") != nil || paused() {
		t.Fatal("the model's own pause and resume")
	}
	// The operator pauses: the model's resume is refused, nothing changes.
	if _, err := r.mgr.SetPaused(ctx, id, true, ""); err != nil {
		t.Fatal(err)
	}
	if err := call(alice, "resume"); err == nil || !strings.Contains(err.Error(), "paused by the operator") || !paused() {
		t.Fatalf("the model's resume of the operator's pause: %v (paused %v)", err, paused())
	}
	// A model's pause on top does not turn the operator's into its own.
	if call(alice, "pause") != nil || call(alice, "resume") == nil || !paused() {
		t.Fatal("a model's pause over the operator's made it the model's to lift")
	}
	if err := call(Caller{Principal: "alice"}, "resume"); err == nil || !paused() {
		t.Fatalf("a call without a session resumed the operator's pause: %v", err)
	}
	// The operator resumes it.
	if _, err := r.mgr.SetPaused(ctx, id, false, ""); err != nil || paused() {
		t.Fatalf("the operator's resume: %v", err)
	}
	if call(alice, "pause") != nil || call(alice, "resume") != nil || paused() {
		t.Fatal("after the operator's resume, the model's own pause is its own again")
	}
}

// TestAModelRunsItsScheduleNoMoreOftenThanItsTiming: a model's run_now
// would otherwise be any timing at all, which a model's update of the
// timing may not be (it drops the approval). The model's run_now is
// refused while a run is in progress and within one period of the last
// run that started; the operator's run-now is not bound; a one-shot is
// run by the model at most once.
func TestAModelRunsItsScheduleNoMoreOftenThanItsTiming(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	model := Caller{Principal: "operator", Session: "ses_1"}
	daily := r.create(Spec{Cron: ptr("0 7 * * *")}) // t0 is 06:00
	runNow := func(id string) error {
		_, err := r.mgr.HandleTool(ctx, model, []byte(`{"action":"run_now","id":"`+id+`"}`))
		r.waitIdle()
		return err
	}
	started := func(id string) int {
		n := 0
		for _, run := range r.runs(id) {
			if run.Outcome == OutcomeOK {
				n++
			}
		}
		return n
	}
	if err := runNow(daily.ID); err != nil || started(daily.ID) != 1 {
		t.Fatalf("the first run_now: %v, %d runs", err, started(daily.ID))
	}
	for i := 0; i < 5; i++ {
		err := runNow(daily.ID)
		if err == nil || !strings.Contains(err.Error(), "no more often than its timing") {
			t.Fatalf("run_now %d within the day: %v", i+2, err)
		}
	}
	r.clock.Advance(30 * time.Minute)
	r.waitIdle()
	if err := runNow(daily.ID); err == nil || started(daily.ID) != 1 {
		t.Fatalf("run_now half an hour later: %v, %d runs", err, started(daily.ID))
	}
	// The operator's run-now is not bound.
	if err := r.mgr.Engine.RunNow(ctx, daily.ID); err != nil {
		t.Fatal(err)
	}
	r.waitIdle()
	if started(daily.ID) != 2 {
		t.Fatalf("the operator's run-now: %d runs", started(daily.ID))
	}
	// A day after the last run the model may again.
	r.clock.Advance(24 * time.Hour)
	r.waitIdle()
	before := started(daily.ID)
	if err := runNow(daily.ID); err != nil || started(daily.ID) != before+1 {
		t.Fatalf("run_now a day later: %v, %d runs (before %d)", err, started(daily.ID), before)
	}
	// A one-shot: once by hand, then refused.
	once := r.create(Spec{At: ptr(r.clock.Now().Add(48 * time.Hour).Format(time.RFC3339))})
	if err := runNow(once.ID); err != nil {
		t.Fatal(err)
	}
	if err := runNow(once.ID); err == nil || !strings.Contains(err.Error(), "runs once") {
		t.Fatalf("a second run_now of a one-shot: %v", err)
	}
}
