package agents_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/turn"
)

// BenchmarkSpawnToFirstRequest measures, in one run, the time from a
// delegate_task call (isolated, no bootstrap, silent) to the child's
// first model request starting, against a plain model step of a
// top-level session (one turn of one text reply, end to end) on the same
// host and scripted model. Reported: both p50s and their ratio.
//
// "other-core" is the same for a child of another core of the revision
// (core_id; that core's host already opened by the warm-up).
func BenchmarkSpawnToFirstRequest(b *testing.B) {
	b.Run("own-core", func(b *testing.B) { benchSpawn(b, "") })
	b.Run("other-core", func(b *testing.B) { benchSpawn(b, "reviewer") })
}

func benchSpawn(b *testing.B, coreID string) {
	state := b.TempDir()
	if coreID != "" {
		state = repoWithCores(b, map[string]string{coreID: reviewerCore})
	}
	f := newFixtureState(b, agents.Limits{MaxRunning: 1000, MaxPerTurn: 1 << 20}, []pt.Step{
		{Text: []string{"plain"}},
		child("bench child", pt.Step{Text: []string{"ok"}}),
	}, "", state)
	args := `{"goal":"bench child","notify_policy":"silent"}`
	if coreID != "" {
		args = `{"goal":"bench child","notify_policy":"silent","core_id":"` + coreID + `"}`
	}
	f.srv.RepeatLast()
	starts := make(chan time.Time, 1)
	f.gate.OnFirstRequest = func(string) { starts <- time.Now() }
	store, _ := f.h.Store()
	ctx := context.Background()
	var spawn, plain []time.Duration
	tm, _ := f.h.Tasks()
	for i := 0; i < b.N+5; i++ {
		began := time.Now()
		if _, err := f.gate.Delegate(ctx, f.h.Session(), delegateCall(fmt.Sprintf("turn_%d", i), args)); err != nil {
			b.Fatal(err)
		}
		first := <-starts
		if err := tm.WaitAll(ctx); err != nil {
			b.Fatal(err)
		}
		l := &turn.Loop{Provider: f.model, Session: f.h.NewSession(), Store: store, System: "You are a test agent."}
		p0 := time.Now()
		if res, err := l.Run(ctx, "plain step", nil); err != nil || res.Status != turn.StatusDone {
			b.Fatal(res, err)
		}
		p1 := time.Now()
		l.Close()
		if i >= 5 { // warm-up
			spawn, plain = append(spawn, first.Sub(began)), append(plain, p1.Sub(p0))
		}
	}
	ps, pp := p50(spawn), p50(plain)
	b.ReportMetric(float64(ps.Microseconds())/1000, "spawn-p50-ms")
	b.ReportMetric(float64(pp.Microseconds())/1000, "plain-step-p50-ms")
	b.ReportMetric(float64(ps)/float64(pp), "ratio")
}

func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// Twenty children started at once on the scripted model all complete.
func TestTwentyConcurrentChildren(t *testing.T) {
	var steps []pt.Step
	for i := range 20 {
		steps = append(steps, child(fmt.Sprintf("kid %02d", i), pt.Step{Text: []string{fmt.Sprintf("answer %02d", i)}, DelayMS: 50}))
	}
	f := newFixture(t, agents.Limits{}, steps)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			out, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_20", fmt.Sprintf(`{"goal":"kid %02d","notify_policy":"wait","tools":"none"}`, i)))
			if err == nil && !strings.Contains(out, fmt.Sprintf("answer %02d", i)) {
				err = fmt.Errorf("kid %02d: %s", i, out)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
