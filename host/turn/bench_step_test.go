package turn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"demiurge.dev/host/providers"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/turn"
)

// stepsPerTurn is the length of one measured turn: the model asks for
// read_file at every step until the step cap ends the turn.
const stepsPerTurn = 20

// stepClock wraps a provider and notes when each step's request starts:
// the time from one start to the next is a whole step (the model's
// stream, then everything the host does before the next request).
type stepClock struct {
	providers.Provider
	mu     sync.Mutex
	starts []time.Time
	// streams are the provider's own times, start to reply.
	streams []time.Duration
	tools   []providers.ToolDef
	system  string
}

func (c *stepClock) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error) {
	c.mu.Lock()
	c.starts = append(c.starts, time.Now())
	c.tools, c.system = req.Tools, req.System
	c.mu.Unlock()
	start := time.Now()
	r, err := c.Provider.Stream(ctx, req, onDelta)
	c.mu.Lock()
	c.streams = append(c.streams, time.Since(start))
	c.mu.Unlock()
	return r, err
}

func gaps(starts []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(starts); i++ {
		out = append(out, starts[i].Sub(starts[i-1]))
	}
	return out
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkReadFileStepVsBareClient is a model step that reads one file,
// in Demiurge and in a bare streaming client loop, against the same
// scripted OpenAI Chat server on loopback (the model asks for read_file at
// every step). Demiurge's step is the whole loop: the catalog for the
// step, the request, the provider, the call through dispatch (schema,
// policy, approval, the coding plugin process, redaction, the durable
// audit event) and the stored messages. The bare loop is the same SDK
// streaming the same request (same system text and tool definitions, the
// history growing alike), assembling the call, reading the file with
// os.ReadFile and appending the messages in memory. Iterations alternate
// one turn of each (stepsPerTurn steps). Reported: the p50 of a step for
// both and the difference, the host's added time.
func BenchmarkReadFileStepVsBareClient(b *testing.B) {
	step := pt.Step{ToolCalls: []pt.ToolCall{{ID: "call_r", Name: "read_file", Args: `{"path":"f0.txt"}`}},
		Usage: &pt.Usage{InputTokens: 500, OutputTokens: 10}}
	srv := pt.NewServer(pt.KindOpenAI, []pt.Step{step})
	srv.RepeatLast()
	b.Cleanup(srv.Close)
	f := benchFixture(b, &script{})
	env := func(string) string { return "" }
	prov, err := providers.New(providers.Config{Provider: providers.ProviderOpenAICompatible, Name: "bench", BaseURL: srv.URL + "/v1"}, env,
		&http.Client{Transport: &http.Transport{}})
	if err != nil {
		b.Fatal(err)
	}
	clock := &stepClock{Provider: prov}
	ctx := context.Background()
	demiurge := func() []time.Duration {
		clock.mu.Lock()
		clock.starts = nil
		clock.mu.Unlock()
		l := &turn.Loop{Provider: clock, Session: f.h.NewSession(), Store: f.store, MaxSteps: stepsPerTurn, System: "You are a test agent."}
		defer l.Close()
		if res, err := l.Run(ctx, "read it again and again", &recorder{}); err != nil || res.Status != turn.StatusStepCap {
			b.Fatal(res, err)
		}
		return gaps(clock.starts)
	}
	// The first turn warms the plugin and gives the bare loop the same
	// tool definitions and system text.
	demiurge()

	hc := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(hc.CloseIdleConnections)
	chat := openai.NewChatCompletionService(option.WithBaseURL(srv.URL+"/v1"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range clock.tools {
		var schema map[string]any
		_ = json.Unmarshal(t.Schema, &schema)
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: schema}))
	}
	bare := func() []time.Duration {
		msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(clock.system), openai.UserMessage("read it again and again")}
		var starts []time.Time
		for range stepsPerTurn {
			starts = append(starts, time.Now())
			s := chat.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "bench", Messages: msgs, Tools: tools,
				MaxTokens: openai.Int(8192), StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
			var acc openai.ChatCompletionAccumulator
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			s.Close()
			calls := acc.Choices[0].Message.ToolCalls
			var args struct{ Path string }
			_ = json.Unmarshal([]byte(calls[0].Function.Arguments), &args)
			data, err := os.ReadFile(filepath.Join(f.workspace, args.Path))
			if err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, acc.Choices[0].Message.ToParam(), openai.ToolMessage(string(data), calls[0].ID))
		}
		starts = append(starts, time.Now())
		return gaps(starts)
	}
	var ds, bs []time.Duration
	clock.streams = nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bs = append(bs, bare()...)
		ds = append(ds, demiurge()...)
	}
	b.StopTimer()
	bp, dp := p50(bs), p50(ds)
	b.ReportMetric(float64(bp.Microseconds()), "bare-p50-µs")
	b.ReportMetric(float64(dp.Microseconds()), "demiurge-p50-µs")
	b.ReportMetric(float64((dp - bp).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64(p50(clock.streams).Microseconds()), "demiurge-stream-p50-µs")
}
