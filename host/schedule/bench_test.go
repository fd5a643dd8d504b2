package schedule

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// fill stores n approved schedules straight into the store.
func fill(tb testing.TB, st Store, n int) {
	tb.Helper()
	for i := 0; i < n; i++ {
		sc := Schedule{ID: fmt.Sprintf("sch_%012d", i), Prompt: "summarise yesterday's failing CI runs, number " + fmt.Sprint(i), CoreID: "main",
			Timing: Timing{Cron: "0 7 * * 1-5", Zone: "Europe/Berlin"}, Budget: DefaultBudget, Missed: MissedSkip, Overlap: OverlapSkip,
			Lease: Lease{Tools: []string{"read_file"}, Paths: []string{"ci/**"}, Expires: t0.Add(720 * time.Hour), ApprovedAt: t0}, Next: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := st.Update(context.Background(), sc.ID, true, func(s *Schedule) (*runtime.Event, bool, error) {
			*s = sc
			return nil, false, nil
		}); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkList1000 is `schedules list` on the host's side: 1,000
// schedules read from bbolt, decoded and rendered one line each (cold:
// no list cache, as right after a write).
func BenchmarkList1000(b *testing.B) { benchList(b, false) }

// BenchmarkList1000Cached is the same between writes (the host's case).
func BenchmarkList1000Cached(b *testing.B) { benchList(b, true) }

func benchList(b *testing.B, cached bool) {
	rt, err := runtime.Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	st := Store{RT: rt}
	if cached {
		st = NewStore(rt)
	}
	fill(b, st, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		all, err := st.List()
		if err != nil || len(all) != 1000 {
			b.Fatal(err, len(all))
		}
		var sb strings.Builder
		for _, sc := range all {
			sb.WriteString(Line(sc, t0))
		}
	}
}

// The 50 ms promise, checked as a test (with room for a loaded machine).
func TestList1000Within50ms(t *testing.T) {
	rt, err := runtime.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	st := Store{RT: rt} // cold: every listing decodes
	fill(t, st, 1000)
	best := time.Hour
	for i := 0; i < 5; i++ {
		began := time.Now()
		all, err := st.List()
		if err != nil || len(all) != 1000 {
			t.Fatal(err, len(all))
		}
		for _, sc := range all {
			_ = Line(sc, t0)
		}
		best = min(best, time.Since(began))
	}
	t.Logf("1,000 schedules listed in %s (best of 5)", best)
	if best > 50*time.Millisecond && !raceEnabled {
		t.Errorf("1,000 schedules listed in %s, more than 50 ms", best)
	}
}

// An idle scheduler on the real clock: with no schedule it holds no
// timer and never wakes; with one due in an hour it holds one timer set
// for that time (capped at MaxSleep) and does not wake before it.
func TestIdleSchedulerDoesNotPoll(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on the real clock")
	}
	rt, err := runtime.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ex := &execs{}
	e := &Engine{Store: NewStore(rt), Exec: ex.exec, Exclusive: true, Check: func(Schedule, time.Time) string { return "" }}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	time.Sleep(time.Second)
	if w, at := e.Wakes(), e.NextWake(); w != 0 || !at.IsZero() {
		t.Fatalf("no schedule: %d wakes, timer at %s", w, at)
	}
	due := time.Now().Add(time.Hour)
	if _, err := e.Store.Update(context.Background(), "sch_idle", true, func(s *Schedule) (*runtime.Event, bool, error) {
		*s = Schedule{ID: "sch_idle", Timing: Timing{EverySeconds: 3600, Anchor: due.Add(-time.Hour)}, Next: due}
		return nil, false, nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Arm()
	time.Sleep(2 * time.Second)
	at := e.NextWake()
	t.Logf("one schedule due in 1h: %d wakes in 2s; the one timer fires in %s", e.Wakes(), time.Until(at).Round(time.Second))
	if e.Wakes() != 0 || at.Before(time.Now().Add(MaxSleep-5*time.Second)) {
		t.Fatalf("one schedule due in an hour: %d wakes, timer at %s", e.Wakes(), at)
	}
	// A due schedule is run by that timer, at its time.
	soon := time.Now().Add(300 * time.Millisecond)
	ex.started = make(chan Run, 1)
	e.Store.Update(context.Background(), "sch_idle", false, func(s *Schedule) (*runtime.Event, bool, error) {
		s.Timing, s.Next = Timing{EverySeconds: 3600, Anchor: soon}, soon
		return nil, false, nil
	})
	e.Arm()
	select {
	case r := <-ex.started:
		late := time.Since(r.Occurrence)
		t.Logf("a run due in 300ms started %s after its time, after %d wake(s)", late.Round(time.Millisecond), e.Wakes())
		if (late > time.Second && !raceEnabled) || e.Wakes() != 1 {
			t.Fatalf("started %s late after %d wakes", late, e.Wakes())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the due run did not start")
	}
}
