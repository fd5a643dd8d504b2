package turn_test

import (
	"context"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// BenchmarkTurnSlots runs a one-step turn with no pipeline slots and with
// a trivial Python input slot and output slot (warm workers: the first
// turn of the session, which starts them, is before the timer), over the same core.
func BenchmarkTurnSlots(b *testing.B) {
	for _, bc := range []struct{ name, pipelines, want string }{
		{"none", "input: []\noutput: []\n", "ok"},
		{"input+output", "input: [tag]\noutput: [shout]\n", "OK"}, // the slots ran
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
			l := &turn.Loop{Provider: model, Session: h.NewSession(), Store: store}
			b.Cleanup(l.Close)
			run := func() {
				if res, err := l.Run(context.Background(), "hi", &recorder{}); err != nil || res.Status != turn.StatusDone || res.Text != bc.want {
					b.Fatal(res, err)
				}
			}
			run()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run()
			}
		})
	}
}
