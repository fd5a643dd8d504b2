package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
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
		{Caller{Principal: "mallory"}, `{"action":"delete","id":"` + id + `"}`, "no such schedule"},
		{Caller{Principal: "mallory"}, `{"action":"run_now","id":"` + id + `"}`, "no such schedule"},
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
	if _, err := r.mgr.Approve(ctx, id, "operator", 1); err != nil {
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
