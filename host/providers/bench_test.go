package providers

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	pt "demiurge.dev/host/providers/providertest"
)

// The benchmarks measure what the provider wrapper adds to a model step
// with no tool calls: each iteration makes one step through the wrapper
// and one direct streaming call of the same SDK to the same loopback
// server, alternately, so both see the same machine. Reported: p50 and p99
// of the whole step and of the time to first token, for both, and the
// difference (the wrapper's added latency).

var benchStep = pt.Step{Text: []string{"The ", "answer ", "is ", "forty-two", "."}, Usage: &pt.Usage{InputTokens: 50, OutputTokens: 5}}

type sample struct{ step, ttft time.Duration }

func timeStep(run func(onText func())) sample {
	start := time.Now()
	var first time.Duration
	run(func() {
		if first == 0 {
			first = time.Since(start)
		}
	})
	return sample{step: time.Since(start), ttft: first}
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func report(b *testing.B, direct, wrapped []sample) {
	pick := func(ss []sample, f func(sample) time.Duration) []time.Duration {
		out := make([]time.Duration, len(ss))
		for i, s := range ss {
			out[i] = f(s)
		}
		return out
	}
	for _, m := range []struct {
		name string
		f    func(sample) time.Duration
	}{{"step", func(s sample) time.Duration { return s.step }}, {"ttft", func(s sample) time.Duration { return s.ttft }}} {
		d, w := pick(direct, m.f), pick(wrapped, m.f)
		for _, q := range []struct {
			name string
			p    float64
		}{{"p50", 0.50}, {"p99", 0.99}} {
			dq, wq := pct(d, q.p), pct(w, q.p)
			b.ReportMetric(float64(dq.Microseconds()), m.name+"-direct-"+q.name+"-µs")
			b.ReportMetric(float64(wq.Microseconds()), m.name+"-wrapper-"+q.name+"-µs")
			b.ReportMetric(float64((wq - dq).Microseconds()), m.name+"-added-"+q.name+"-µs")
		}
	}
}

func benchServer(b *testing.B, kind string) *pt.Server {
	srv := pt.NewServer(kind, []pt.Step{benchStep})
	srv.RepeatLast()
	b.Cleanup(srv.Close)
	return srv
}

func benchProvider(b *testing.B, provider, url string) Provider {
	p, err := New(Config{Provider: provider, Name: "bench-model", BaseURL: url}, keyEnv, &http.Client{Transport: &http.Transport{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { closeIdle(p) })
	return p
}

func runBench(b *testing.B, p Provider, direct func(ctx context.Context, onText func()) error) {
	ctx := context.Background()
	req := hello()
	var ds, ws []sample
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		ds = append(ds, timeStep(func(onText func()) { err = direct(ctx, onText) }))
		if err != nil {
			b.Fatal(err)
		}
		ws = append(ws, timeStep(func(onText func()) {
			_, err = p.Stream(ctx, req, func(Delta) { onText() })
		}))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, ds, ws)
}

func BenchmarkStepOpenAIChat(b *testing.B) {
	srv := benchServer(b, pt.KindOpenAI)
	p := benchProvider(b, ProviderOpenAI, srv.URL+"/v1")
	hc := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(hc.CloseIdleConnections)
	chat := openai.NewChatCompletionService(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey(testKey), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	runBench(b, p, func(ctx context.Context, onText func()) error {
		s := chat.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: shared.ChatModel("bench-model"),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("hello")}})
		defer s.Close()
		for s.Next() {
			if c := s.Current(); len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
				onText()
			}
		}
		return s.Err()
	})
}

func BenchmarkStepAnthropic(b *testing.B) {
	srv := benchServer(b, pt.KindAnthropic)
	p := benchProvider(b, ProviderAnthropic, srv.URL)
	hc := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(hc.CloseIdleConnections)
	c := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(srv.URL), aoption.WithAPIKey(testKey), aoption.WithMaxRetries(0), aoption.WithHTTPClient(hc))
	runBench(b, p, func(ctx context.Context, onText func()) error {
		s := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: "bench-model", MaxTokens: 8192,
			System:   []anthropic.TextBlockParam{{Text: "be brief"}},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))}})
		defer s.Close()
		for s.Next() {
			if ev := s.Current(); ev.Type == "content_block_delta" && ev.Delta.Text != "" {
				onText()
			}
		}
		return s.Err()
	})
}
