package turn_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// BenchmarkTurnSlots runs one-step turns over two hosts of the same core
// but for pipelines.yaml: one with no pipeline slots, one with a trivial
// Python bootstrap, input and output slot (warm workers: the first turn
// of each session, which starts them and makes the bootstrap snapshot,
// is before the timer). The two turns alternate in one loop, so that the
// machine's load falls on both alike; the metrics are each one's p50 and
// the p50 of the difference per pair. Both read the session's bootstrap
// snapshot at every step, as every entry point does.
func BenchmarkTurnSlots(b *testing.B) {
	mk := func(pipelines, want string) func() time.Duration {
		model := &script{uncounted: true, step: func(int, providers.Request) (providers.Reply, error) {
			return providers.Reply{Text: "ok", Stop: providers.StopEndTurn}, nil
		}}
		h, _ := pipelineFixture(b, model, pipelines)
		store, err := h.Store()
		if err != nil {
			b.Fatal(err)
		}
		// One session: a slot's warm worker is per session (its sandbox
		// policy holds the session's private tmp dir).
		l := &turn.Loop{Provider: model, Session: h.NewSession(), Store: store, Instructions: []func(context.Context) (string, error){h.BootstrapInstruction()}}
		b.Cleanup(l.Close)
		run := func() time.Duration {
			start := time.Now()
			if res, err := l.Run(context.Background(), "hi", &recorder{}); err != nil || res.Status != turn.StatusDone || res.Text != want {
				b.Fatal(res, err)
			}
			return time.Since(start)
		}
		run()
		if want == "OK" && !strings.Contains(model.lastSystem(), "booted") {
			b.Fatal("the bootstrap slot's part is not in the system text")
		}
		return run
	}
	none := mk("bootstrap: []\ninput: []\noutput: []\n", "ok")
	slots := mk("bootstrap: [boot]\ninput: [tag]\noutput: [shout]\n", "OK") // OK: the slots ran
	var dn, ds, diff []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var n, s time.Duration
		if i%2 == 0 {
			n, s = none(), slots()
		} else {
			s, n = slots(), none()
		}
		dn, ds, diff = append(dn, n), append(ds, s), append(diff, s-n)
	}
	b.ReportMetric(ms(p50(dn)), "none-p50-ms")
	b.ReportMetric(ms(p50(ds)), "slots-p50-ms")
	b.ReportMetric(ms(p50(diff)), "added-p50-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (s *script) lastSystem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return ""
	}
	return s.reqs[len(s.reqs)-1].System
}
