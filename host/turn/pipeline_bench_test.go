package turn_test

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// BenchmarkTurnSlots runs a one-step turn with no pipeline slots and with
// a trivial Python bootstrap, input and output slot (warm workers: the
// first turn of the session, which starts them and makes the bootstrap
// snapshot, is before the timer), over the same core. Both read the
// session's bootstrap snapshot at every step, as every entry point does.
func BenchmarkTurnSlots(b *testing.B) {
	for _, bc := range []struct{ name, pipelines, want string }{
		{"none", "bootstrap: []\ninput: []\noutput: []\n", "ok"},
		{"bootstrap+input+output", "bootstrap: [boot]\ninput: [tag]\noutput: [shout]\n", "OK"}, // the slots ran
	} {
		b.Run(bc.name, func(b *testing.B) {
			model := &script{uncounted: true, step: func(int, providers.Request) (providers.Reply, error) {
				return providers.Reply{Text: "ok", Stop: providers.StopEndTurn}, nil
			}}
			h, _ := pipelineFixture(b, model, bc.pipelines)
			store, err := h.Store()
			if err != nil {
				b.Fatal(err)
			}
			// One session: a slot's warm worker is per session (its
			// sandbox policy holds the session's private tmp dir).
			l := &turn.Loop{Provider: model, Session: h.NewSession(), Store: store, Instructions: []func(context.Context) (string, error){h.BootstrapInstruction()}}
			b.Cleanup(l.Close)
			run := func() {
				if res, err := l.Run(context.Background(), "hi", &recorder{}); err != nil || res.Status != turn.StatusDone || res.Text != bc.want {
					b.Fatal(res, err)
				}
			}
			run()
			if bc.want == "OK" && !strings.Contains(model.lastSystem(), "booted") {
				b.Fatal("the bootstrap slot's part is not in the system text")
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run()
			}
		})
	}
}

func (s *script) lastSystem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return ""
	}
	return s.reqs[len(s.reqs)-1].System
}
