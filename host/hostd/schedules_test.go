package hostd

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/host/schedule"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

type testScheduleEnv struct{}

func (testScheduleEnv) CoreKnown(id string) (bool, []string) {
	return id == "default", []string{"default"}
}
func (testScheduleEnv) DefaultCore() string           { return "default" }
func (testScheduleEnv) Workspace() string             { return "/ws" }
func (testScheduleEnv) ToolKnown(_, tool string) bool { return tool == "read_file" }
func (testScheduleEnv) Binding(string) (string, string, error) {
	return "rev", "cat", nil
}

// withSchedules gives the host a scheduler whose runs do nothing.
func withSchedules(m **schedule.Manager) func(*toolhost.Host, *Options) {
	return func(h *toolhost.Host, o *Options) {
		store, err := h.Store()
		if err != nil {
			panic(err)
		}
		eng := &schedule.Engine{Store: schedule.NewStore(store), Exclusive: true,
			Check: func(schedule.Schedule, time.Time) string { return "" },
			Exec: func(context.Context, schedule.Schedule, schedule.Run) schedule.Result {
				return schedule.Result{Outcome: schedule.OutcomeOK}
			}}
		if err := eng.Start(context.Background()); err != nil {
			panic(err)
		}
		*m = &schedule.Manager{Store: eng.Store, Engine: eng, Env: testScheduleEnv{}}
		o.Schedules = *m
	}
}

func TestSchedulesKeepTheHostUpAndStatusShowsTheNextRun(t *testing.T) {
	var m *schedule.Manager
	th := startHostWith(t, 300*time.Millisecond, withSchedules(&m))
	ctx := context.Background()
	sc, err := m.Create(ctx, schedule.Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(3600))}, "operator", "")
	if err != nil {
		t.Fatal(err)
	}
	c := th.dial(t)
	c.Close() // no front end attached from here on
	select {
	case <-th.done:
		th.done <- nil
		t.Fatalf("the host exited idle with a schedule due: %s", th.srv.Why())
	case <-time.After(1500 * time.Millisecond):
	}
	c = th.dial(t)
	st, err := c.Status(ctx, &hostv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Schedules != 1 || st.NextDueSchedule != sc.ID || st.NextDueUnixMs != sc.Next.UnixMilli() {
		t.Fatalf("status: %d schedules, next %s at %d; want %s at %d", st.Schedules, st.NextDueSchedule, st.NextDueUnixMs, sc.ID, sc.Next.UnixMilli())
	}
	// Approving through the operator's RPC binds the lease, named by the
	// fingerprint show answered; none, or another, approves nothing.
	shown, err := c.Schedules(ctx, &hostv1.SchedulesRequest{Action: "show", Id: sc.ID})
	if err != nil {
		t.Fatal(err)
	}
	var view schedule.ShownSchedule
	if err := json.Unmarshal(shown.Json, &view); err != nil || view.Approval == nil || len(view.Approval.Fingerprint) != schedule.FingerprintLen {
		t.Fatalf("show answered %s (%v)", shown.Json, err)
	}
	for _, fp := range []string{"", "0123456789abcdef"} {
		if _, err := c.Schedules(ctx, &hostv1.SchedulesRequest{Action: "approve", Id: sc.ID, Principal: "operator", Fingerprint: fp}); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("approve with fingerprint %q: %v", fp, err)
		}
	}
	res, err := c.Schedules(ctx, &hostv1.SchedulesRequest{Action: "approve", Id: sc.ID, Principal: "operator", Fingerprint: view.Approval.Fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	var got schedule.Schedule
	if err := json.Unmarshal(res.Json, &got); err != nil || got.Lease.CoreRevision != "rev" || got.Lease.Catalog != "cat" || got.Lease.ApprovedBy != "operator" {
		t.Fatalf("approve answered %s (%v)", res.Json, err)
	}
	if _, err := c.Schedules(ctx, &hostv1.SchedulesRequest{Action: "runs", Id: "sch_nosuch"}); err == nil {
		t.Fatal("runs of an unknown schedule answered")
	}
	// With the schedule gone the host exits when idle.
	if _, err := c.Schedules(ctx, &hostv1.SchedulesRequest{Action: "delete", Id: sc.ID}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case <-th.done:
		th.done <- nil
	case <-time.After(30 * time.Second):
		t.Fatal("the host did not exit idle once its schedule was deleted")
	}
}

// 1,000 schedules listed through the socket, as `schedules list` asks.
func TestThousandSchedulesListedWithin50ms(t *testing.T) {
	var m *schedule.Manager
	th := startHostWith(t, -1, withSchedules(&m))
	now := time.Now()
	for i := 0; i < 1000; i++ {
		sc := schedule.Schedule{ID: fmt.Sprintf("sch_%012d", i), Prompt: fmt.Sprintf("summarise yesterday's failing CI runs, number %d", i), CoreID: "default",
			Timing: schedule.Timing{Cron: "0 7 * * 1-5", Zone: "Europe/Berlin"}, Budget: schedule.DefaultBudget, Missed: schedule.MissedSkip, Overlap: schedule.OverlapSkip,
			Next: now.Add(time.Duration(i+60) * time.Minute)}
		if _, err := m.Store.Update(context.Background(), sc.ID, true, func(s *schedule.Schedule) (*runtime.Event, bool, error) {
			*s = sc
			return nil, false, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	c := th.dial(t)
	for _, action := range []string{"list-lines", "list"} {
		best, first := time.Hour, time.Duration(0)
		for i := 0; i < 5; i++ {
			began := time.Now()
			res, err := c.Schedules(context.Background(), &hostv1.SchedulesRequest{Action: action})
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]json.RawMessage
			if err := json.Unmarshal(res.Json, &out); err != nil {
				t.Fatal(err)
			}
			took := time.Since(began)
			if i == 0 {
				first = took
			}
			best = min(best, took)
		}
		t.Logf("%s: 1,000 schedules through the socket in %s (best of 5; the first, after the writes, %s)", action, best, first)
		if action == "list-lines" && best > 50*time.Millisecond {
			t.Errorf("1,000 schedules listed in %s, more than 50 ms", best)
		}
	}
}

func ptr[T any](v T) *T { return &v }
