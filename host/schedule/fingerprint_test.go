package schedule

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestApproveApprovesOnlyTheScheduleTheOperatorRead: the approval names
// the fingerprint `schedules show` printed; any change since to what the
// approval trusts (the model's update of the prompt, timing, budget,
// result file or lease, or a new core revision, catalog or workspace it
// would bind) refuses it and approves nothing; run state (a pause) does
// not change it.
func TestApproveApprovesOnlyTheScheduleTheOperatorRead(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	me := Caller{Principal: "alice", Session: "ses_a"}
	sc, err := r.mgr.Create(ctx, Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(3600)),
		Lease: &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"ci/**"}}}, "alice", "ses_a")
	if err != nil {
		t.Fatal(err)
	}
	id := sc.ID
	seen := func() string {
		t.Helper()
		sc, err := r.mgr.Store.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.mgr.ApprovalOf(*sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Fingerprint) != FingerprintLen || a.CoreRevision != r.env.revision || a.Catalog != r.env.catalog {
			t.Fatalf("approval %+v", a)
		}
		return a.Fingerprint
	}
	update := func(args string) func() {
		return func() {
			if _, err := r.mgr.HandleTool(ctx, me, []byte(`{"action":"update","id":"`+id+`",`+args+`}`)); err != nil {
				t.Fatalf("update %s: %v", args, err)
			}
		}
	}
	setEnv := func(f func(e *env)) func() {
		return func() { r.env.mu.Lock(); f(r.env); r.env.mu.Unlock() }
	}
	for _, c := range []struct {
		name   string
		change func()
	}{
		{"prompt", update(`"prompt":"now delete the backups"`)},
		{"lease tools", update(`"lease":{"tools":["read_file","terminal"],"paths":["ci/**"]}`)},
		{"lease commands", update(`"lease":{"tools":["read_file","terminal"],"paths":["ci/**"],"commands":["rm *"]}`)},
		{"lease paths", update(`"lease":{"tools":["read_file"],"paths":["./**"]}`)},
		{"lease expiry", update(`"lease":{"tools":["read_file"],"paths":["ci/**"],"expires_in_days":90}`)},
		{"timing", update(`"every_seconds":60`)},
		{"budget", update(`"budget":{"steps":200,"output_tokens":1000,"wall_seconds":60}`)},
		{"result file", update(`"result_file":"ci/out.md"`)},
		{"tools", update(`"tools":["read_file"]`)},
		{"overlap", update(`"overlap":"queue"`)},
		{"core revision", setEnv(func(e *env) { e.revision += "x" })},
		{"catalog", setEnv(func(e *env) { e.catalog += "x" })},
		{"workspace", setEnv(func(e *env) { e.workspace += "/other" })},
	} {
		fp := seen()
		c.change()
		_, err := r.mgr.Approve(ctx, id, "operator", 1, fp)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "changed since fingerprint "+fp) ||
			!strings.Contains(err.Error(), "`demiurge schedules show "+id+"`") {
			t.Fatalf("%s changed after show: approve answered %v", c.name, err)
		}
		if now := seen(); strings.Contains(err.Error(), now) {
			t.Fatalf("%s: the refusal names the new fingerprint: %v", c.name, err)
		}
		if got, _ := r.mgr.Store.Get(id); got.Lease.Approved() {
			t.Fatalf("%s changed after show: approved anyway", c.name)
		}
	}
	if _, err := r.mgr.Approve(ctx, id, "operator", 1, ""); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "needs the fingerprint") {
		t.Fatalf("approve without a fingerprint: %v", err)
	}
	// A pause is no change to what is approved.
	fp := seen()
	if _, err := r.mgr.SetPaused(ctx, id, true, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mgr.Approve(ctx, id, "operator", 1, strings.ToUpper(fp)+" "); err != nil {
		t.Fatalf("approve as read: %v", err)
	}
	if got, _ := r.mgr.Store.Get(id); !got.Lease.Approved() || got.Lease.CoreRevision != r.env.revision {
		t.Fatalf("approved %+v", got.Lease)
	}
}
