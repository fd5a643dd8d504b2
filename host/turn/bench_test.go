package turn_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/toolsetv1"
)

func benchFixture(b *testing.B, model *script) *fixture {
	f := newFixture(b, model)
	for i := range 5 {
		f.write(b, fmt.Sprintf("f%d.txt", i), strings.Repeat("a line of text\n", 20))
	}
	return f
}

// BenchmarkFiveBarePluginRoundTrips is the reference for the step below:
// five read_file calls sent straight to the coding plugin, no host policy.
func BenchmarkFiveBarePluginRoundTrips(b *testing.B) {
	f := benchFixture(b, &script{})
	ctx := context.Background()
	invoke := func(i, j int) {
		req := &toolsetv1.EffectRequest{Tool: "read_file", Arguments: fmt.Appendf(nil, `{"path":"f%d.txt"}`, j),
			Workspace: f.workspace, InvocationId: fmt.Sprint("bare-", i, "-", j)}
		res, err := f.h.Plugins.Invoke(ctx, "coding", req, plugins.Hooks{}, nil)
		if err != nil || res.GetIsError() {
			b.Fatal(err, res)
		}
	}
	invoke(-1, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range 5 {
			invoke(i, j)
		}
	}
}

// BenchmarkModelStepFiveReads is one turn of an in-process model: a step
// with five auto-approved read_file calls run as one batch through
// dispatch (schema, policy, approval, the plugin, redaction, audit), the
// messages stored, and the answering step.
func BenchmarkModelStepFiveReads(b *testing.B) {
	five := calls(call("r0", "read_file", `{"path":"f0.txt"}`), call("r1", "read_file", `{"path":"f1.txt"}`),
		call("r2", "read_file", `{"path":"f2.txt"}`), call("r3", "read_file", `{"path":"f3.txt"}`), call("r4", "read_file", `{"path":"f4.txt"}`))
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n%2 == 1 {
			return five, nil
		}
		return answer("read them"), nil
	}}
	f := benchFixture(b, model)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A fresh loop each time, so the history does not grow.
		l := &turn.Loop{Provider: model, Session: f.h.NewSession(), Store: f.store}
		if res, err := l.Run(ctx, "read five files", &recorder{}); err != nil || res.Status != turn.StatusDone {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkResumeSession1000 resumes a stored session of 1,000 messages:
// a new loop reads and replays the history and runs a one-step turn.
func BenchmarkResumeSession1000(b *testing.B) {
	model := &script{window: 10_000_000, uncounted: true, step: func(int, providers.Request) (providers.Reply, error) { return answer("ok"), nil }}
	f := benchFixture(b, model)
	s := f.h.Session()
	var msgs []runtime.MessageRecord
	for i := range 250 {
		msgs = append(msgs,
			runtime.MessageRecord{Role: "user", Text: fmt.Sprintf("request %d: %s", i, strings.Repeat("words ", 40))},
			runtime.MessageRecord{Role: "assistant", ToolCalls: []byte(fmt.Sprintf(`[{"id":"c%d","name":"read_file","args":"{\"path\":\"f0.txt\"}"}]`, i))},
			runtime.MessageRecord{Role: "tool", ToolResults: []byte(fmt.Sprintf(`[{"call_id":"c%d","name":"read_file","content":%q}]`, i, strings.Repeat("a line of text\n", 60)))},
			runtime.MessageRecord{Role: "assistant", Text: strings.Repeat("an answer ", 30)})
	}
	if _, err := f.store.AppendMessages(context.Background(), s.ID(), msgs); err != nil {
		b.Fatal(err)
	}
	// The resumed session is recorded once, as a real one would be.
	if _, err := s.NewTurn(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := &turn.Loop{Provider: model, Session: s, Store: f.store}
		if res, err := l.Run(context.Background(), "and now?", &recorder{}); err != nil || res.Status != turn.StatusDone {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkIdleSessionMemory is the heap an idle session's loop keeps
// after one short turn (its history and bookkeeping), per session.
func BenchmarkIdleSessionMemory(b *testing.B) {
	model := &script{step: func(int, providers.Request) (providers.Reply, error) { return answer("hello to you"), nil }}
	f := benchFixture(b, model)
	const sessions = 50
	for i := 0; i < b.N; i++ {
		loops := make([]*turn.Loop, sessions)
		goruntime.GC()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		for j := range loops {
			loops[j] = &turn.Loop{Provider: model, Session: f.h.NewSession(), Store: f.store}
			if _, err := loops[j].Run(context.Background(), "hello", &recorder{}); err != nil {
				b.Fatal(err)
			}
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		// Signed: the heap can shrink across the sessions (a GC of earlier
		// garbage), and an unsigned difference would wrap to ~1.8e19.
		b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/sessions, "heap-B/session")
		goruntime.KeepAlive(loops)
	}
}

// BenchmarkNewTurn is the per-step catalog resolution alone (the same
// for a new and a resumed session), to read the resume figure by.
func BenchmarkNewTurn(b *testing.B) {
	f := benchFixture(b, &script{})
	s := f.h.Session()
	for i := 0; i < b.N; i++ {
		if _, err := s.NewTurn(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendTurnMessages is the two durable appends of a one-step
// turn (the prompt, the reply), each committed before the turn goes on.
func BenchmarkAppendTurnMessages(b *testing.B) {
	f := benchFixture(b, &script{})
	id := f.h.Session().ID()
	for i := 0; i < b.N; i++ {
		for _, m := range []runtime.MessageRecord{{Role: "user", Text: "and now?"}, {Role: "assistant", Text: "ok"}} {
			if _, err := f.store.AppendMessages(context.Background(), id, []runtime.MessageRecord{m}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
