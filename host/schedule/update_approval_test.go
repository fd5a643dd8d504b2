package schedule

import (
	"context"
	"encoding/json"
	"testing"
)

// TestModelUpdateThatRunsMoreDropsTheApproval: the operator approved a
// schedule as it stood; an update by the model keeps that approval only
// when it changes the prompt (the run's user message, which approves
// nothing) or narrows. Any other timing, a larger budget or grace window,
// catch_up, a queue or cancel overlap, another result file: approve again.
func TestModelUpdateThatRunsMoreDropsTheApproval(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	me := Caller{Principal: "alice", Session: "ses_a"}
	out, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"create","prompt":"p","cron":"0 7 * * 1-5","zone":"Europe/Berlin",`+
		`"budget":{"steps":5,"output_tokens":1000,"wall_seconds":60},"grace_seconds":60,"lease":{"tools":["read_file"],"paths":["ci/**"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Schedule struct {
			ID string `json:"id"`
		} `json:"schedule"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Schedule.ID == "" {
		t.Fatalf("create answered %s (%v)", out, err)
	}
	id := created.Schedule.ID
	const base = `"cron":"0 7 * * 1-5","zone":"Europe/Berlin","budget":{"steps":3,"output_tokens":500,"wall_seconds":30},` +
		`"grace_seconds":30,"missed":"skip","overlap":"skip","result_file":""`
	for _, c := range []struct {
		from, update string // from: the schedule the operator approves
		keeps        bool
	}{
		{base, `"prompt":"another question"`, true},
		{base, `"budget":{"steps":2,"output_tokens":400,"wall_seconds":20}`, true},
		{base, `"grace_seconds":10`, true},
		{base + `,"missed":"catch_up","overlap":"queue"`, `"missed":"skip","overlap":"skip"`, true},
		{base, `"cron":"* * * * *","zone":"Europe/Berlin"`, false},
		{base, `"zone":"America/New_York"`, false},
		{base, `"every_seconds":3600`, false},
		{`"every_seconds":3600`, `"every_seconds":1`, false},
		{`"at":"2099-01-01T07:00:00Z"`, `"at":"2098-01-01T07:00:00Z"`, false},
		{base, `"budget":{"steps":200,"output_tokens":500,"wall_seconds":30}`, false},
		{base, `"budget":{"steps":3,"output_tokens":90000,"wall_seconds":30}`, false},
		{base, `"budget":{"steps":3,"output_tokens":500,"wall_seconds":3600}`, false},
		{base, `"grace_seconds":600000`, false},
		{base, `"missed":"catch_up"`, false},
		{base, `"overlap":"queue"`, false},
		{base, `"overlap":"cancel"`, false},
		{base, `"result_file":"ci/report.md"`, false},
	} {
		if _, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"update","id":"`+id+`",`+c.from+`}`)); err != nil {
			t.Fatalf("from %s: %v", c.from, err)
		}
		if _, err := r.approve(id, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"update","id":"`+id+`",`+c.update+`}`)); err != nil {
			t.Fatalf("update %s: %v", c.update, err)
		}
		sc, err := r.mgr.Store.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Lease.Approved() != c.keeps {
			t.Errorf("from {%s}, update {%s}: approval kept %v, want %v", c.from, c.update, sc.Lease.Approved(), c.keeps)
		}
	}
}
